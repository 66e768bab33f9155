import Foundation

// Model files carry predicates and expressions as text (XML `predicateString`,
// `minValueString`, `derivationExpression`) or as archived `NSComparisonPredicate` trees (.mom,
// Z_MODELCACHE). Foundation on Linux cannot parse predicate formats, and OpenCoreData's own
// `NSPredicate` engine is not on this branch yet, so loaders keep every predicate as a format
// string in Apple's syntax. `PendingPredicates.makePredicate(format:)` is the single place that
// turns them into `NSPredicate`s; once the engine lands it parses, and `resolve(in:)` fills
// `validationPredicates`, fetch request predicates and derivation expressions.

/// A validation rule from a model file: Apple's predicate format and the warning shown when it fails.
///
/// Xcode's model editor turns minimum/maximum/pattern settings into these shapes:
/// numbers `SELF >= 1`, string lengths `length <= 20`, patterns `SELF MATCHES '[a-z]+'`,
/// dates `SELF >= CAST(284000400.000000, 'NSDate')`.
package struct PendingValidationRule: Hashable, Sendable, CustomStringConvertible {
    /// The predicate format string.
    package var format: String
    /// The validation warning (Apple's `validationWarnings` entry).
    package var warning: String

    package init(format: String, warning: String) {
        self.format = format
        self.warning = warning
    }

    package var description: String { format }
}

/// A fetch request predicate from a model file, waiting to be parsed.
package struct PendingPredicate: CustomStringConvertible {
    /// The predicate format string, e.g. `name == $NAME`.
    package var format: String
    /// Values for the `$VARIABLE`s, from `fetchRequestFromTemplate(withName:substitutionVariables:)`.
    package var substitutionVariables: [String: Any]

    package init(format: String, substitutionVariables: [String: Any] = [:]) {
        self.format = format
        self.substitutionVariables = substitutionVariables
    }

    package var description: String { format }
}

/// Turns pending predicate formats into predicates, once a predicate engine is available.
package enum PendingPredicates {
    /// Whether predicate formats can be parsed in this build.
    ///
    /// False until OpenCoreData's `NSPredicate(format:argumentArray:)` is on main; the format
    /// strings stay in `pendingValidationRules`, `pendingPredicate` and `derivationExpressionFormat`.
    package static var canParseFormats: Bool { false }

    /// A predicate for a format string, or nil when it can't be parsed here.
    package static func makePredicate(format: String, substitutionVariables: [String: Any] = [:]) -> NSPredicate? {
        nil
    }

    /// Converts what can be converted in a freshly loaded model: validation rules to
    /// `setValidationPredicates(_:withValidationWarnings:)`, fetch request template and fetched
    /// property formats to `predicate`. Unparseable formats stay pending; loading never fails here.
    package static func resolve(in model: NSManagedObjectModel) {
        guard canParseFormats else { return }
        for entity in model.entities {
            for property in entity.ownProperties where !property.pendingValidationRules.isEmpty {
                let predicates = property.pendingValidationRules.compactMap { makePredicate(format: $0.format) }
                guard predicates.count == property.pendingValidationRules.count else { continue }
                property.setValidationPredicates(predicates, withValidationWarnings: property.pendingValidationRules.map(\.warning))
            }
            for case let fetched as NSFetchedPropertyDescription in entity.ownProperties {
                if let request = fetched.fetchRequest { resolve(request) }
            }
        }
        for request in model.fetchRequestTemplatesByName.values { resolve(request) }
    }

    /// Sets a request's predicate from its pending format, when it can be parsed.
    package static func resolve<Result>(_ request: NSFetchRequest<Result>) {
        guard let pending = request.pendingPredicate, request.predicate == nil,
              let predicate = makePredicate(format: pending.format, substitutionVariables: pending.substitutionVariables)
        else { return }
        request.predicate = predicate
    }
}
