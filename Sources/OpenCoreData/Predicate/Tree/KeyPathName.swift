import Foundation
import Synchronization

// MARK: - KeyPathName

/// Turns Swift key paths into key-value coding names, and key-path strings into expressions.
///
/// On Linux (Swift 6.3) a key path describes itself as `\Todo.title`, `\Todo.owner?.name?`
/// or `\Todo.owner!.name`; the root type's name is dropped and `?`/`!` are stripped, giving
/// `title` and `owner.name`. Limits: computed properties and subscripts describe themselves
/// as `<computed 0x… (Type)>` and have no name; tuple elements keep their labels.
///
/// Properties of non-final classes (and so of `NSManagedObject` subclasses) are reached
/// through accessors and also describe themselves as `<computed …>`. Such roots name their
/// key paths by conforming to `KeyPathNameProviding`, which is consulted first.
package enum KeyPathName {
    /// The key-value coding name of a Swift key path, or `nil` when a component has no name.
    ///
    /// `\Todo.self` gives `"self"`.
    package static func name(of keyPath: AnyKeyPath) -> String? {
        if let naming = type(of: keyPath).rootType as? any KeyPathNameProviding.Type,
           let name = naming.keyValueCodingName(for: keyPath) {
            return name
        }
        let description = String(describing: keyPath)
        guard description.hasPrefix("\\") else { return nil }
        var rest = Substring(description.dropFirst())
        let rootName = String(describing: type(of: keyPath).rootType)
        if rest.hasPrefix(rootName + ".") {
            rest = rest.dropFirst(rootName.count + 1)
        } else if let dot = firstTopLevelDot(in: rest) {
            rest = rest[rest.index(after: dot)...]
        } else {
            return nil
        }
        var components: [String] = []
        for raw in rest.split(separator: ".", omittingEmptySubsequences: false) {
            var component = Substring(raw)
            while let last = component.last, last == "?" || last == "!" { component = component.dropLast() }
            guard !component.isEmpty, !component.contains("<"), !component.contains("["),
                  !component.contains("("), !component.contains(" ") else { return nil }
            components.append(String(component))
        }
        if components == ["self"] { return "self" }
        let named = components.filter { $0 != "self" }
        return named.isEmpty ? nil : named.joined(separator: ".")
    }

    /// The first `.` not inside `<…>` generic arguments.
    private static func firstTopLevelDot(in text: Substring) -> Substring.Index? {
        var depth = 0
        for index in text.indices {
            switch text[index] {
            case "<": depth += 1
            case ">": depth -= 1
            case "." where depth == 0: return index
            default: break
            }
        }
        return nil
    }

    /// The expression for a dot-separated key path string (`%K`, `NSExpression(forKeyPath:)`).
    package static func expression(forKeyPath path: String) -> ExpressionNode {
        switch path {
        case "SELF", "self": .evaluatedObject
        default: .keyPath(.evaluatedObject, path)
        }
    }
}

// MARK: - LateKeyPathName

/// A Swift key path whose name is looked up when it is needed, and remembered once found.
///
/// `\Todo.title` on a `@Managed` subclass has a name only once a coordinator uses the model
/// (the name is found by probing an object of the entity), so sort descriptors and predicates
/// made earlier, such as `static let byTitle = NSSortDescriptor(keyPath: \Todo.title, …)`,
/// resolve it when a fetch runs.
///
/// `@unchecked Sendable`: `keyPath` is an immutable key path (Swift 6.3 does not mark
/// `AnyKeyPath` `Sendable`), and the name is only read or written under its `Mutex`.
package final class LateKeyPathName: @unchecked Sendable {
    /// The key path.
    package let keyPath: AnyKeyPath
    private let name = Mutex<String?>(nil)

    package init(_ keyPath: AnyKeyPath) {
        self.keyPath = keyPath
    }

    /// The key path's name, or nil while no loaded model gives it one.
    package var resolved: String? {
        if let known = name.withLock({ $0 }) { return known }
        guard let found = KeyPathName.name(of: keyPath) else { return nil }
        name.withLock { $0 = found }
        return found
    }

    /// The name, or a stop naming the key path: a fetch cannot honour a key path without a name
    /// (Apple raises for a key path that is not key-value coding compliant).
    package func required(for use: String) -> String {
        guard let name = resolved else {
            CoreDataError.programmerError("The key path \(keyPath) in \(use) has no key-value coding name: it is not a @Managed property of an entity in a loaded model (computed properties and subscripts have none).")
        }
        return name
    }

    /// The expression that reads this key path from `base`: its name once known; in memory
    /// until then, by the key path itself.
    package func expression(on base: ExpressionNode) -> ExpressionNode {
        if let name = resolved { return name == "self" ? base : PredicateParser.appendKey(name, to: base) }
        return .block(ExpressionBlock(lateKeyPath: self), [base])
    }

    /// The value of the key path on `object`: by name when known, else read through the key path.
    package func value(of object: Any?) -> Any? {
        if let name = resolved { return KeyValueAccess.value(forKeyPath: name, of: object) }
        guard let object = PredicateValue.unwrap(object) else { return nil }
        func open<Root>(_ root: Root) -> Any? {
            guard let typed = keyPath as? PartialKeyPath<Root> else { return nil }
            return PredicateValue.unwrap(root[keyPath: typed])
        }
        return _openExistential(object, do: open)
    }
}

// MARK: - KeyPathNameProviding

/// A type that names its Swift key paths for predicates and sort descriptors.
///
/// Needed when the key path's description carries no name: properties of non-final classes,
/// computed properties (such as macro-generated managed properties). Code generation
/// (`@Managed`) or a hand-written table can provide it:
///
/// ```swift
/// extension Todo: KeyPathNameProviding {
///     static func keyValueCodingName(for keyPath: AnyKeyPath) -> String? {
///         switch keyPath {
///         case \Todo.title: "title"
///         case \Todo.owner: "owner"
///         default: nil
///         }
///     }
/// }
/// ```
public protocol KeyPathNameProviding {
    /// The key-value coding name of a key path rooted at this type, or `nil` if unknown.
    static func keyValueCodingName(for keyPath: AnyKeyPath) -> String?
}
