import Foundation

/// Predicates and expressions in model files, parsed with OpenCoreData's predicate engine.
///
/// Model files carry them as text (XML `predicateString`, `derivationExpression`) or as archived
/// `NSComparisonPredicate` trees, which ``ArchivedPredicateFormatter`` turns into text. Parsing
/// goes through the throwing `NSPredicate.parse(format:arguments:)`, not `init(format:)`, which
/// stops the program on a malformed string: model files come from outside.
enum ModelPredicates {
    /// Parses a predicate from a model file.
    ///
    /// - Throws: `NSFileReadCorruptFileError` naming the file, entity and property.
    static func predicate(_ format: String, arguments: [Any] = [], location: ModelFileLocation) throws -> NSPredicate {
        do {
            return try NSPredicate.parse(format: format, arguments: arguments)
        } catch {
            throw ModelFileError.corrupt(location, "the predicate '\(format)' is not valid (\(error))", underlying: error)
        }
    }

    /// Parses an expression from a model file.
    ///
    /// - Throws: `NSFileReadCorruptFileError` naming the file, entity and property.
    static func expression(_ format: String, location: ModelFileLocation) throws -> NSExpression {
        do {
            return try NSExpression.parse(format: format)
        } catch {
            throw ModelFileError.corrupt(location, "the expression '\(format)' is not valid (\(error))", underlying: error)
        }
    }

    /// Parses a predicate rebuilt from an archive, or logs and returns nil: a compiled model or a
    /// store's cache still loads when one predicate has a shape this reader doesn't know.
    static func archivedPredicate(_ format: String?, location: ModelFileLocation) -> NSPredicate? {
        guard let format else { return nil }
        do {
            return try NSPredicate.parse(format: format)
        } catch {
            Log.modelFile.warning("\(location.text): ignoring the archived predicate '\(format)': \(error)")
            return nil
        }
    }

    /// Parses an expression rebuilt from an archive, or logs and returns nil.
    static func archivedExpression(_ format: String?, location: ModelFileLocation) -> NSExpression? {
        guard let format else { return nil }
        do {
            return try NSExpression.parse(format: format)
        } catch {
            Log.modelFile.warning("\(location.text): ignoring the archived expression '\(format)': \(error)")
            return nil
        }
    }
}
