import Foundation

// MARK: - PredicateParser

/// A recursive-descent parser for Apple's predicate format grammar.
///
/// Grammar (lowest precedence first): `OR`/`||`, `AND`/`&&`, `NOT`/`!`, comparison,
/// `UNION`/`INTERSECT`/`MINUS`, `+ -`, `* /`, `**` (right-associative), unary `-`,
/// postfix `.key` and `[index]`. A parenthesized group in predicate position may hold a
/// predicate or an expression; the parser decides without backtracking, so parsing is linear.
/// Nesting is limited to `maximumDepth` and the tree's depth (chains included) to
/// `PredicateDepth.maximumDepth`, so no input can exhaust the stack of the parser or of any
/// later walk of the tree.
package struct PredicateParser {
    /// How deeply parentheses, `NOT`s and unary minuses may nest.
    package static let maximumDepth = 100

    package let format: String
    private let scalars: [Unicode.Scalar]
    let arguments: [Any]
    private var tokens: [PredicateToken] = []
    private var index = 0
    private var depth = 0

    package init(format: String, arguments: [Any]) throws(PredicateFormatError) {
        self.format = format
        self.scalars = Array(format.unicodeScalars)
        self.arguments = arguments
        let format = format
        let scalars = scalars
        var lexer = PredicateLexer(scalars: scalars) { offset, message in
            Self.error(.syntax, at: offset, message, format: format, scalars: scalars)
        }
        tokens = try lexer.tokenize()
    }

    // MARK: - Entry points

    /// Parses a whole predicate and requires the end of the string after it.
    package mutating func parsePredicateToEnd() throws(PredicateFormatError) -> PredicateNode {
        let predicate = try parsePredicate()
        try expectEnd()
        _ = try checkedDepth(PredicateDepth.depth(of: predicate))
        return predicate
    }

    /// Parses a whole expression and requires the end of the string after it.
    package mutating func parseExpressionToEnd() throws(PredicateFormatError) -> ExpressionNode {
        let expression = try parseExpression()
        try expectEnd()
        _ = try checkedDepth(PredicateDepth.depth(of: expression))
        return expression
    }

    private mutating func expectEnd() throws(PredicateFormatError) {
        guard current.kind == .end else { throw unexpected("the end of the format string") }
    }

    // MARK: - Token access

    var current: PredicateToken {
        WorkCounter.count()
        return index < tokens.count ? tokens[index] : PredicateToken(kind: .end, offset: scalars.count)
    }

    var next: PredicateToken {
        index + 1 < tokens.count ? tokens[index + 1] : PredicateToken(kind: .end, offset: scalars.count)
    }

    mutating func advance() {
        if index < tokens.count { index += 1 }
    }

    func isSymbol(_ symbol: String) -> Bool {
        current.kind == .symbol(symbol)
    }

    /// The upper-cased keyword at the current token, if it is an unescaped reserved word.
    func keyword(_ token: PredicateToken? = nil) -> String? {
        guard case .identifier(let name, escaped: false) = (token ?? current).kind else { return nil }
        let upper = name.uppercased()
        return PredicateKeywords.reserved.contains(upper) ? upper : nil
    }

    func isKeyword(_ word: String) -> Bool {
        keyword() == word
    }

    mutating func expectSymbol(_ symbol: String) throws(PredicateFormatError) {
        guard isSymbol(symbol) else { throw unexpected("'\(symbol)'") }
        advance()
    }

    mutating func enterNesting() throws(PredicateFormatError) {
        depth += 1
        if depth > Self.maximumDepth {
            throw error(.tooDeep, "nesting is deeper than \(Self.maximumDepth) levels")
        }
    }

    mutating func leaveNesting() {
        depth -= 1
    }

    // MARK: - Errors

    func error(_ code: PredicateFormatError.Code, _ message: String, at token: PredicateToken? = nil) -> PredicateFormatError {
        Self.error(code, at: (token ?? current).offset, message, format: format, scalars: scalars)
    }

    func unexpected(_ expected: String) -> PredicateFormatError {
        error(.syntax, "expected \(expected), found \(describe(current))")
    }

    func describe(_ token: PredicateToken) -> String {
        switch token.kind {
        case .identifier(let name, let escaped): escaped ? "'#\(name)'" : "'\(name)'"
        case .variable(let name): "'$\(name)'"
        case .string(let text): "the string \"\(text.prefix(20))\""
        case .number: "a number"
        case .specifier(let specifier, _): "'\(specifier.spelling)'"
        case .symbol(let symbol): "'\(symbol)'"
        case .end: "the end of the format string"
        }
    }

    private static func error(
        _ code: PredicateFormatError.Code, at scalarOffset: Int, _ message: String,
        format: String, scalars: [Unicode.Scalar]
    ) -> PredicateFormatError {
        let clamped = max(0, min(scalarOffset, scalars.count))
        let scalarIndex = format.unicodeScalars.index(format.unicodeScalars.startIndex, offsetBy: clamped)
        let characterOffset = format.distance(from: format.startIndex, to: scalarIndex)
        return PredicateFormatError(code: code, offset: characterOffset, message: message, format: format)
    }

    // MARK: - Predicates

    /// A parse result in predicate position: a predicate, or (only inside parentheses) an expression.
    enum Parsed {
        case predicate(PredicateNode)
        case expression(ExpressionNode)
    }

    mutating func parsePredicate() throws(PredicateFormatError) -> PredicateNode {
        let start = current
        switch try parseOr(allowBare: false) {
        case .predicate(let predicate): return predicate
        case .expression: throw error(.syntax, "expected a predicate, found an expression", at: start)
        }
    }

    private mutating func parseOr(allowBare: Bool) throws(PredicateFormatError) -> Parsed {
        let first = try parseAnd(allowBare: allowBare)
        guard case .predicate(let head) = first, isOr else { return first }
        var operands = [head]
        while isOr {
            advance()
            operands.append(try requirePredicate(parseAnd(allowBare: false)))
        }
        return .predicate(.compound(.or, operands))
    }

    private mutating func parseAnd(allowBare: Bool) throws(PredicateFormatError) -> Parsed {
        let first = try parseNot(allowBare: allowBare)
        guard case .predicate(let head) = first, isAnd else { return first }
        var operands = [head]
        while isAnd {
            advance()
            operands.append(try requirePredicate(parseNot(allowBare: false)))
        }
        return .predicate(.compound(.and, operands))
    }

    private var isOr: Bool { isKeyword("OR") || isSymbol("||") }
    private var isAnd: Bool { isKeyword("AND") || isSymbol("&&") }

    private func requirePredicate(_ parsed: Parsed) throws(PredicateFormatError) -> PredicateNode {
        switch parsed {
        case .predicate(let predicate): return predicate
        case .expression: throw unexpected("a comparison operator")
        }
    }

    private mutating func parseNot(allowBare: Bool) throws(PredicateFormatError) -> Parsed {
        guard isKeyword("NOT") || isSymbol("!") else { return try parsePrimaryPredicate(allowBare: allowBare) }
        advance()
        try enterNesting()
        defer { leaveNesting() }
        return .predicate(.compound(.not, [try requirePredicate(parseNot(allowBare: false))]))
    }

    private mutating func parsePrimaryPredicate(allowBare: Bool) throws(PredicateFormatError) -> Parsed {
        try enterNesting()
        defer { leaveNesting() }
        switch keyword() {
        case "TRUEPREDICATE":
            advance()
            return .predicate(.constant(true))
        case "FALSEPREDICATE":
            advance()
            return .predicate(.constant(false))
        case "ANY", "SOME", "ALL", "NONE":
            let word = keyword()
            advance()
            let left = try parseExpression()
            let comparison = try requirePredicate(
                parseComparisonRest(left: left, modifier: word == "ALL" ? .all : .any, allowBare: false))
            return .predicate(word == "NONE" ? .compound(.not, [comparison]) : comparison)
        default:
            break
        }
        if isSymbol("(") {
            advance()
            let inner = try parseOr(allowBare: true)
            try expectSymbol(")")
            switch inner {
            case .predicate:
                return inner
            case .expression(let expression):
                let left = try continueExpression(from: expression)
                return try parseComparisonRest(left: left, modifier: .direct, allowBare: allowBare)
            }
        }
        let left = try parseExpression()
        return try parseComparisonRest(left: left, modifier: .direct, allowBare: allowBare)
    }

    // MARK: - Comparisons

    private mutating func parseComparisonRest(
        left: ExpressionNode, modifier: NSComparisonPredicate.Modifier, allowBare: Bool
    ) throws(PredicateFormatError) -> Parsed {
        guard let operatorType = comparisonOperator() else {
            if allowBare && modifier == .direct { return .expression(left) }
            throw unexpected("a comparison operator")
        }
        advance()
        let options = try parseOptions()
        let right = try parseExpression()
        return .predicate(.comparison(ComparisonNode(
            left: left, right: right, operatorType: operatorType, modifier: modifier, options: options)))
    }

    private func comparisonOperator() -> NSComparisonPredicate.Operator? {
        if case .symbol(let symbol) = current.kind {
            switch symbol {
            case "==": return .equalTo
            case "!=": return .notEqualTo
            case "<": return .lessThan
            case "<=": return .lessThanOrEqualTo
            case ">": return .greaterThan
            case ">=": return .greaterThanOrEqualTo
            default: return nil
            }
        }
        switch keyword() {
        case "LIKE": return .like
        case "MATCHES": return .matches
        case "CONTAINS": return .contains
        case "BEGINSWITH": return .beginsWith
        case "ENDSWITH": return .endsWith
        case "IN": return .in
        case "BETWEEN": return .between
        default: return nil
        }
    }

    private mutating func parseOptions() throws(PredicateFormatError) -> NSComparisonPredicate.Options {
        guard isSymbol("[") else { return [] }
        advance()
        guard case .identifier(let letters, escaped: false) = current.kind else {
            throw unexpected("comparison options such as [c], [d], [cd] or [n]")
        }
        var options: NSComparisonPredicate.Options = []
        for letter in letters.lowercased() {
            switch letter {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            case "n": options.insert(.normalized)
            default: throw error(.syntax, "unknown comparison option '\(letter)'; expected c, d or n")
            }
        }
        advance()
        try expectSymbol("]")
        return options
    }
}

// MARK: - PredicateKeywords

/// Reserved words of the format grammar (case-insensitive).
package enum PredicateKeywords {
    /// Words the parser treats as keywords unless escaped with `#`.
    package static let reserved: Set<String> = [
        "AND", "OR", "IN", "NOT", "ALL", "ANY", "SOME", "NONE", "LIKE", "MATCHES", "CONTAINS",
        "BEGINSWITH", "ENDSWITH", "BETWEEN", "NULL", "NIL", "SELF", "TRUE", "YES", "FALSE", "NO",
        "ANYKEY", "SUBQUERY", "FETCH", "CAST", "TRUEPREDICATE", "FALSEPREDICATE", "FUNCTION", "TERNARY",
    ]

    /// Words Apple reserves that the parser accepts as keys in context; printed escaped.
    package static let contextual: Set<String> = [
        "FIRST", "LAST", "SIZE", "CASEINSENSITIVE", "CI", "UNION", "INTERSECT", "MINUS",
    ]

    /// Whether a key path component must be printed as `#name`.
    package static func needsEscape(_ component: String) -> Bool {
        let upper = component.uppercased()
        return reserved.contains(upper) || contextual.contains(upper)
    }
}
