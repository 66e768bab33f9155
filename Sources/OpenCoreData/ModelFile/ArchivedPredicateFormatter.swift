import Foundation

/// Turns archived `NSPredicate` and `NSExpression` trees (from a .mom or Z_MODELCACHE) into
/// Apple's format strings (`title.length >= 3`, `count:(pages)`, `authorAlias == $FETCH_SOURCE.alias`).
///
/// The archived shapes are black-box observations (shared/docs/coredata-formats.md §2):
/// `NSComparisonPredicate` (`NSLeftExpression`, `NSRightExpression`, `NSPredicateOperator` with
/// `NSOperatorType`, `NSModifier`, `NSOptions`/`NSFlags`, `NSNegate`), `NSCompoundPredicate`
/// (`NSCompoundPredicateType`, `NSSubpredicates`) and the expression classes by
/// `NSExpressionType`. Shapes not seen in the fixtures throw ``Unsupported``, and the caller
/// keeps loading without that predicate.
struct ArchivedPredicateFormatter {
    /// A predicate or expression shape this formatter does not know.
    struct Unsupported: Error {
        var what: String
    }

    /// How deep predicates and expressions may nest.
    static let maximumDepth = 64

    // MARK: - Predicates

    func predicate(_ object: ArchivedObject, depth: Int = 0) throws -> String {
        guard depth < Self.maximumDepth else { throw Unsupported(what: "predicate nested too deeply") }
        if object.isKind(of: "NSTruePredicate") { return "TRUEPREDICATE" }
        if object.isKind(of: "NSFalsePredicate") { return "FALSEPREDICATE" }
        if object.isKind(of: "NSCompoundPredicate") {
            let parts = try object.elements("NSSubpredicates").map { value -> String in
                guard case .object(let sub) = value else { throw Unsupported(what: "a compound predicate's element is not a predicate") }
                let text = try predicate(sub, depth: depth + 1)
                return sub.isKind(of: "NSCompoundPredicate") ? "(\(text))" : text
            }
            switch try object.integer("NSCompoundPredicateType") ?? 1 {
            case 0:
                guard let first = parts.first else { throw Unsupported(what: "NOT with no subpredicate") }
                return "NOT \(first)"
            case 1: return parts.isEmpty ? "TRUEPREDICATE" : parts.joined(separator: " AND ")
            case 2: return parts.isEmpty ? "FALSEPREDICATE" : parts.joined(separator: " OR ")
            case let other: throw Unsupported(what: "compound predicate type \(other)")
            }
        }
        if object.isKind(of: "NSComparisonPredicate") {
            guard let left = try object.object("NSLeftExpression"), let right = try object.object("NSRightExpression") else {
                throw Unsupported(what: "comparison predicate without two expressions")
            }
            let leftText = try expression(left, depth: depth + 1)
            let rightText = try expression(right, depth: depth + 1)
            let operatorObject = try object.object("NSPredicateOperator")
            let type = try operatorObject?.integer("NSOperatorType") ?? object.integer("NSPredicateOperatorType") ?? 4
            let negate = try operatorObject?.bool("NSNegate") ?? false
            let modifier = try operatorObject?.integer("NSModifier") ?? object.integer("NSComparisonPredicateModifier") ?? 0
            let options = try operatorObject?.integer("NSOptions") ?? operatorObject?.integer("NSFlags") ?? 0
            var symbol: String
            switch type {
            case 0: symbol = "<"
            case 1: symbol = "<="
            case 2: symbol = ">"
            case 3: symbol = ">="
            case 4: symbol = negate ? "!=" : "=="
            case 5: symbol = "!="
            case 6: symbol = "MATCHES"
            case 7: symbol = "LIKE"
            case 8: symbol = "BEGINSWITH"
            case 9: symbol = "ENDSWITH"
            case 10: symbol = "IN"
            case 99: symbol = "CONTAINS"
            case 100: symbol = "BETWEEN"
            default: throw Unsupported(what: "comparison operator \(type)")
            }
            var flags = ""
            if options & 1 != 0 { flags += "c" }
            if options & 2 != 0 { flags += "d" }
            if options & 4 != 0 { flags += "n" }
            if !flags.isEmpty { symbol += "[\(flags)]" }
            let prefix: String
            switch modifier {
            case 1: prefix = "ALL "
            case 2: prefix = "ANY "
            default: prefix = ""
            }
            let text = "\(prefix)\(leftText) \(symbol) \(rightText)"
            return negate && type != 4 ? "NOT \(text)" : text
        }
        throw Unsupported(what: "predicate class \(object.className)")
    }

    // MARK: - Expressions

    func expression(_ object: ArchivedObject, depth: Int = 0) throws -> String {
        guard depth < Self.maximumDepth else { throw Unsupported(what: "expression nested too deeply") }
        let type = try object.integer("NSExpressionType")
        switch (object.className, type) {
        case ("NSSelfExpression", _), (_, 1?):
            return "SELF"
        case ("NSVariableExpression", _), (_, 2?):
            guard let name = try object.string("NSVariable") else { throw Unsupported(what: "variable without a name") }
            return "$" + name
        case ("NSKeyPathSpecifierExpression", _), (_, 10?):
            guard let keyPath = try object.string("NSKeyPath") else { throw Unsupported(what: "key path without a path") }
            return keyPath
        case ("NSConstantValueExpression", _), (_, 0?):
            return try constant(object.value("NSConstantValue"), depth: depth)
        case ("NSAggregateExpression", _), (_, 14?):
            let items = try object.elements("NSCollection").map { value -> String in
                guard case .object(let item) = value else { return try constant(value, depth: depth) }
                return try expression(item, depth: depth + 1)
            }
            return "{" + items.joined(separator: ", ") + "}"
        default:
            break
        }
        if object.isKind(of: "NSFunctionExpression") || type == 3 || type == 4 {
            return try function(object, depth: depth)
        }
        throw Unsupported(what: "expression class \(object.className)")
    }

    /// Key paths (`valueForKey:`/`valueForKeyPath:` on an operand) and function calls.
    private func function(_ object: ArchivedObject, depth: Int) throws -> String {
        let selector = try object.string("NSSelectorName") ?? ""
        let arguments = try object.elements("NSArguments").map { value -> String in
            guard case .object(let argument) = value else { return try constant(value, depth: depth) }
            return try expression(argument, depth: depth + 1)
        }
        let operand = try object.object("NSOperand")
        if selector == "valueForKey:" || selector == "valueForKeyPath:" {
            guard let keyPath = arguments.first else { throw Unsupported(what: "key path expression without a key") }
            guard let operand else { return keyPath }
            let operandType = try operand.integer("NSExpressionType")
            if operand.isKind(of: "NSSelfExpression") || operandType == 1 { return keyPath }
            return try expression(operand, depth: depth + 1) + "." + keyPath
        }
        // Built-in functions (`count:`, `now`, `sum:`…) are sent to the `_NSPredicateUtilities` class.
        guard let operand, !operand.isKind(of: "NSConstantValueExpression") else { return "\(selector)(\(arguments.joined(separator: ", ")))" }
        let target = try expression(operand, depth: depth + 1)
        return "FUNCTION(\(([target, quoted(selector)] + arguments).joined(separator: ", ")))"
    }

    // MARK: - Constants

    private func constant(_ value: ArchiveValue, depth: Int) throws -> String {
        guard depth < Self.maximumDepth else { throw Unsupported(what: "constant nested too deeply") }
        switch value {
        case .null: return "nil"
        case .bool(let bool): return bool ? "YES" : "NO"
        case .number(let number): return number.stringValue
        case .string(let string): return quoted(string)
        case .date(let date): return "CAST(\(String(format: "%.6f", date.timeIntervalSinceReferenceDate)), 'NSDate')"
        case .data: throw Unsupported(what: "data constant")
        case .array(let raw):
            let items = try raw.map { item -> String in
                switch item {
                case let string as String: return quoted(string)
                case let number as NSNumber: return number.stringValue
                default: throw Unsupported(what: "inline array constant element \(type(of: item))")
                }
            }
            return "{" + items.joined(separator: ", ") + "}"
        case .object(let object):
            switch try object.foundationValue(depth: 4) {
            case let string as String: return quoted(string)
            case let date as Date: return try constant(.date(date), depth: depth + 1)
            case let number as NSNumber: return number.stringValue
            case let uuid as UUID: return "CAST(\(quoted(uuid.uuidString)), 'NSUUID')"
            case let array as [Any]:
                let items = try array.map { item -> String in
                    switch item {
                    case let string as String: return quoted(string)
                    case let number as NSNumber: return number.stringValue
                    case let date as Date: return try constant(.date(date), depth: depth + 1)
                    default: throw Unsupported(what: "collection constant element \(type(of: item))")
                    }
                }
                return "{" + items.joined(separator: ", ") + "}"
            default:
                throw Unsupported(what: "constant of class \(object.className)")
            }
        }
    }

    private func quoted(_ string: String) -> String {
        "\"" + string.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
