import Foundation

// MARK: - Format arguments

extension PredicateParser {
    /// Replaces a format specifier with its argument, checking the argument's type.
    mutating func substitute(
        _ specifier: FormatSpecifier, argument index: Int, at token: PredicateToken
    ) throws(PredicateFormatError) -> ExpressionNode {
        guard index < arguments.count else {
            throw error(
                .argument,
                "missing argument for \(specifier.spelling): the format needs at least \(index + 1), got \(arguments.count)",
                at: token)
        }
        let value = PredicateValue.unwrap(arguments[index])
        func mismatch(_ expected: String) -> PredicateFormatError {
            error(.argument, "\(specifier.spelling) expects \(expected), got \(Self.typeName(of: value)) (argument \(index + 1))", at: token)
        }
        switch specifier {
        case .object:
            if let expression = value as? NSExpression { return expression.node }
            if value is NSPredicate { throw mismatch("a value, not a predicate") }
            return .constant(value)
        case .keyPath:
            // A Swift key path (`\Todo.title`) stands in for `#keyPath(Todo.title)`, which needs
            // the Objective-C runtime (docs/Deviations.md).
            if let keyPath = value as? AnyKeyPath {
                guard let path = KeyPathName.name(of: keyPath) else {
                    throw mismatch("a key path string, or a Swift key path to @Managed properties of a class whose model is loaded")
                }
                return KeyPathName.expression(forKeyPath: path)
            }
            guard let path = PredicateValue.string(value), !path.isEmpty else { throw mismatch("a key path string") }
            return KeyPathName.expression(forKeyPath: path)
        case .signedInteger, .unsignedInteger:
            guard let number = Self.integer(value) else { throw mismatch("an integer") }
            return .constant(number)
        case .floatingPoint:
            guard let number = PredicateNumber(value)?.doubleValue else { throw mismatch("a floating-point number") }
            return .constant(number)
        case .cString:
            guard let text = PredicateValue.string(value) else { throw mismatch("a string") }
            return .constant(text)
        case .character:
            guard let text = Self.character(value) else { throw mismatch("a character") }
            return .constant(text)
        }
    }

    private static func integer(_ value: Any?) -> Any? {
        guard !(value is String), let number = PredicateNumber(value) else { return nil }
        switch number {
        case .int(let int): return Int(int)
        case .uint(let uint): return uint
        case .double(let double):
            guard double.rounded() == double, let int = Int(exactly: double) else { return nil }
            return int
        case .decimal:
            return nil
        }
    }

    private static func character(_ value: Any?) -> String? {
        if let character = value as? Character { return String(character) }
        if let text = PredicateValue.string(value), text.count == 1 { return text }
        if case .int(let code)? = PredicateNumber(value), let scalar = Unicode.Scalar(UInt32(clamping: code)) {
            return String(Character(scalar))
        }
        return nil
    }

    private static func typeName(of value: Any?) -> String {
        guard let value else { return "nil" }
        return String(describing: type(of: value))
    }
}
