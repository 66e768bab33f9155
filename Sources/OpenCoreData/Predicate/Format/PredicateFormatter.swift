import Foundation

// MARK: - PredicateFormatter

/// Prints predicate and expression trees as format strings that parse back to equal trees.
///
/// Dates print as `CAST(<seconds since 2001>, "NSDate")` as Apple does; `UUID`, `URL`, `Data`
/// and `Decimal` print as `CAST("…", "NSUUID")` and friends, which this parser folds back.
package enum PredicateFormatter {
    /// The format string of a predicate.
    package static func format(_ node: PredicateNode) -> String {
        format(node, nested: false)
    }

    private static func format(_ node: PredicateNode, nested: Bool) -> String {
        WorkCounter.count()
        switch node {
        case .constant(let value):
            return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .block(let block):
            return "BLOCKPREDICATE(\(identifier(of: block)))"
        case .comparison(let comparison):
            return format(comparison)
        case .compound(.not, let children):
            guard let child = children.first else { return "NOT TRUEPREDICATE" }
            return "NOT " + format(child, nested: true)
        case .compound(let kind, let children):
            if children.isEmpty { return kind == .and ? "TRUEPREDICATE" : "FALSEPREDICATE" }
            if children.count == 1, let only = children.first { return format(only, nested: nested) }
            let joined = children.map { format($0, nested: true) }.joined(separator: kind == .and ? " AND " : " OR ")
            return nested ? "(" + joined + ")" : joined
        }
    }

    private static func format(_ comparison: ComparisonNode) -> String {
        var text = ""
        switch comparison.modifier {
        case .direct: break
        case .any: text += "ANY "
        case .all: text += "ALL "
        }
        text += format(comparison.left) + " "
        if comparison.operatorType == .customSelector {
            return text + (comparison.customSelector ?? "customSelector:") + " " + format(comparison.right)
        }
        text += operatorSymbol(comparison.operatorType)
        var letters = ""
        if comparison.options.contains(.caseInsensitive) { letters += "c" }
        if comparison.options.contains(.diacriticInsensitive) { letters += "d" }
        if comparison.options.contains(.normalized) { letters += "n" }
        if !letters.isEmpty { text += "[" + letters + "]" }
        return text + " " + format(comparison.right)
    }

    private static func operatorSymbol(_ operatorType: NSComparisonPredicate.Operator) -> String {
        switch operatorType {
        case .lessThan: "<"
        case .lessThanOrEqualTo: "<="
        case .greaterThan: ">"
        case .greaterThanOrEqualTo: ">="
        case .equalTo: "=="
        case .notEqualTo: "!="
        case .matches: "MATCHES"
        case .like: "LIKE"
        case .beginsWith: "BEGINSWITH"
        case .endsWith: "ENDSWITH"
        case .in: "IN"
        case .customSelector: "customSelector"
        case .contains: "CONTAINS"
        case .between: "BETWEEN"
        }
    }

    // MARK: - Expressions

    /// Precedence levels: set operators 0, `+ -` 1, `* /` 2, `**` 3, unary 4, postfix 5, atoms 6.
    private static let unaryPrecedence = 4
    private static let postfixPrecedence = 5

    /// The format string of an expression.
    package static func format(_ node: ExpressionNode) -> String {
        format(node, minimum: 0)
    }

    private static func format(_ node: ExpressionNode, minimum: Int) -> String {
        let (text, precedence) = formatWithPrecedence(node)
        return precedence < minimum ? "(" + text + ")" : text
    }

    private static func formatWithPrecedence(_ node: ExpressionNode) -> (String, Int) {
        WorkCounter.count()
        switch node {
        case .constant(let value):
            let text = formatConstant(value)
            return (text, text.hasPrefix("-") ? unaryPrecedence : 6)
        case .evaluatedObject:
            return ("SELF", 6)
        case .variable(let name):
            return ("$" + name, 6)
        case .keyPath(let operand, let path):
            let key = path.split(separator: ".", omittingEmptySubsequences: false)
                .map { formatKey(String($0)) }.joined(separator: ".")
            if case .evaluatedObject = operand { return (key, 6) }
            return (format(operand, minimum: postfixPrecedence) + "." + key, postfixPrecedence)
        case .function(let name, let arguments):
            return formatFunction(name, arguments)
        case .customFunction(let operand, let selector, let arguments):
            let parts = [format(operand), formatConstant(selector)] + arguments.map { format($0) }
            return ("FUNCTION(" + parts.joined(separator: ", ") + ")", 6)
        case .aggregate(let elements):
            return ("{" + elements.map { format($0) }.joined(separator: ", ") + "}", 6)
        case .set(let operation, let lhs, let rhs):
            return (format(lhs, minimum: 0) + " " + operation.keyword + " " + format(rhs, minimum: 1), 0)
        case .subquery(let collection, let variable, let predicate):
            return ("SUBQUERY(" + format(collection) + ", $" + variable + ", " + format(predicate) + ")", 6)
        case .anyKey:
            return ("ANYKEY", 6)
        case .block(let block, let arguments):
            if let late = block.lateKeyPath, let base = arguments.first, let name = late.resolved {
                return formatWithPrecedence(name == "self" ? base : PredicateParser.appendKey(name, to: base))
            }
            let parts = [identifier(of: block)] + arguments.map { format($0) }
            return ("BLOCK(" + parts.joined(separator: ", ") + ")", 6)
        case .conditional(let predicate, let whenTrue, let whenFalse):
            return ("TERNARY(" + format(predicate) + ", " + format(whenTrue) + ", " + format(whenFalse) + ")", 6)
        case .fetchRequest(let request, let context, let countOnly):
            return ("FETCH(" + format(request) + ", " + format(context) + ", " + (countOnly ? "YES" : "NO") + ")", 6)
        }
    }

    private static func formatFunction(_ name: String, _ arguments: [ExpressionNode]) -> (String, Int) {
        if arguments.count == 2, let (symbol, precedence) = BuiltinFunction.infixOperators[name] {
            // `0 - x` prints as `-x`, which parses back to `0 - x`, unless x is a constant: the
            // parser folds `-5` into the constant -5 (and `0 - 0` printed `-0` became 0).
            // Any numeric zero (`NO - a`, `0.0 - a`) prints so too: it parses back to the integer
            // 0, an equal constant, and printing the re-parsed predicate gives the same text.
            if name == "from:subtract:", case .constant(let zero) = arguments[0],
               PredicateNumber(PredicateValue.unwrap(zero))?.doubleValue == 0, !isConstant(arguments[1]) {
                return ("-" + format(arguments[1], minimum: unaryPrecedence + 1), unaryPrecedence)
            }
            let rightAssociative = symbol == "**"
            let lhs = format(arguments[0], minimum: rightAssociative ? precedence + 1 : precedence)
            let rhs = format(arguments[1], minimum: rightAssociative ? precedence : precedence + 1)
            return (lhs + " " + symbol + " " + rhs, precedence)
        }
        if name == BuiltinFunction.indexFunction, arguments.count == 2 {
            let index: String
            if case .constant(let symbol as PredicateIndexSymbol) = arguments[1] { index = symbol.rawValue } else { index = format(arguments[1]) }
            return (format(arguments[0], minimum: postfixPrecedence) + "[" + index + "]", postfixPrecedence)
        }
        let list = arguments.map { format($0) }.joined(separator: ", ")
        if name == BuiltinFunction.castFunction { return ("CAST(" + list + ")", 6) }
        return (name + "(" + list + ")", 6)
    }

    private static func isConstant(_ node: ExpressionNode) -> Bool {
        if case .constant = node { return true }
        return false
    }

    // MARK: - Keys

    /// One key path component as format text: plain identifiers as they are, reserved words as
    /// `#word`, and anything else (spaces, quotes, `$`, a digit first, empty) as `#"…"`, which
    /// the lexer reads back as the same key; Apple prints such keys raw, which does not re-parse.
    private static func formatKey(_ component: String) -> String {
        let scalars = component.unicodeScalars
        var body = Substring.UnicodeScalarView(scalars)
        if scalars.first == "@" { body = Substring.UnicodeScalarView(scalars.dropFirst()) }
        guard let first = body.first, PredicateLexer.isIdentifierStart(first), body.allSatisfy(PredicateLexer.isIdentifierPart) else {
            return "#" + quote(component)
        }
        if scalars.first == "@" { return component }
        return PredicateKeywords.needsEscape(component) ? "#" + component : component
    }

    // MARK: - Constants

    /// A constant as format-string text.
    package static func formatConstant(_ value: Any?) -> String {
        guard let value = PredicateValue.unwrap(value) else { return "nil" }
        if let symbol = value as? PredicateIndexSymbol { return symbol.rawValue }
        if let number = PredicateNumber(value) {
            switch number {
            case .int(let int): return String(int)
            case .uint(let uint): return String(uint)
            case .double(let double):
                return double.isFinite ? "\(double)" : "CAST(" + quote("\(double)") + ", \"NSNumber\")"
            case .decimal(let decimal):
                return "CAST(" + quote(decimal.description) + ", \"NSDecimalNumber\")"
            }
        }
        if let string = PredicateValue.string(value) { return quote(string) }
        if let date = PredicateValue.date(value) {
            return "CAST(\(date.timeIntervalSinceReferenceDate), \"NSDate\")"
        }
        switch value {
        case let uuid as UUID: return "CAST(" + quote(uuid.uuidString) + ", \"NSUUID\")"
        case let uuid as NSUUID: return "CAST(" + quote(uuid.uuidString) + ", \"NSUUID\")"
        case let url as URL: return "CAST(" + quote(url.absoluteString) + ", \"NSURL\")"
        case let url as NSURL: return "CAST(" + quote((url as URL).absoluteString) + ", \"NSURL\")"
        case let data as Data: return "CAST(" + quote(data.base64EncodedString()) + ", \"NSData\")"
        case let data as NSData: return "CAST(" + quote(data.base64EncodedString()) + ", \"NSData\")"
        default: break
        }
        if let elements = PredicateValue.constantCollectionElements(value) {
            return "{" + elements.map(formatConstant).joined(separator: ", ") + "}"
        }
        return String(describing: value)
    }

    /// A double-quoted string literal with escapes.
    package static func quote(_ string: String) -> String {
        var text = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    text += String(format: "\\u%04X", scalar.value)
                } else {
                    text.unicodeScalars.append(scalar)
                }
            }
        }
        return text + "\""
    }

    private static func identifier(of object: AnyObject) -> String {
        "0x" + String(UInt(bitPattern: ObjectIdentifier(object).hashValue), radix: 16)
    }
}
