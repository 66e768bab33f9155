import Foundation

// MARK: - Expressions

extension PredicateParser {
    /// Parses an expression: set operators, arithmetic, unary minus, postfix, primaries.
    mutating func parseExpression() throws(PredicateFormatError) -> ExpressionNode {
        try parseBinary(minimumPrecedence: 0, seed: nil)
    }

    /// Continues an expression whose first primary (a parenthesized group) is already parsed.
    mutating func continueExpression(from primary: ExpressionNode) throws(PredicateFormatError) -> ExpressionNode {
        try parseBinary(minimumPrecedence: 0, seed: parsePostfix(primary))
    }

    private mutating func parseBinary(
        minimumPrecedence: Int, seed: ExpressionNode?
    ) throws(PredicateFormatError) -> ExpressionNode {
        var lhs: ExpressionNode
        if let seed { lhs = seed } else { lhs = try parseUnary() }
        var depth: Int?
        while let (operation, precedence, rightAssociative) = binaryOperator(), precedence >= minimumPrecedence {
            advance()
            try enterNesting()
            let rhs = try parseBinary(
                minimumPrecedence: rightAssociative ? precedence : precedence + 1, seed: nil)
            leaveNesting()
            // Each operator of a chain is a level of the tree: refuse the chain before it is
            // deeper than any walker of the tree can recurse.
            let lhsDepth = depth ?? PredicateDepth.depth(of: lhs)
            depth = try checkedDepth(max(lhsDepth, PredicateDepth.depth(of: rhs)) + 1)
            lhs = operation(lhs, rhs)
        }
        return lhs
    }

    /// `depth`, or a `.tooDeep` error when a tree that deep may not be built.
    func checkedDepth(_ depth: Int) throws(PredicateFormatError) -> Int {
        guard depth <= PredicateDepth.maximumDepth else {
            throw error(.tooDeep, "the expression is nested deeper than \(PredicateDepth.maximumDepth) levels (each operator of a chain such as a + b + c, and each subscript, is a level)")
        }
        return depth
    }

    private typealias Combine = (ExpressionNode, ExpressionNode) -> ExpressionNode

    private func binaryOperator() -> (Combine, Int, Bool)? {
        if case .symbol(let symbol) = current.kind,
           let name = BuiltinFunction.function(forOperator: symbol),
           let info = BuiltinFunction.infixOperators[name] {
            return ({ .function(name, [$0, $1]) }, info.precedence, symbol == "**")
        }
        guard case .identifier(let word, escaped: false) = current.kind else { return nil }
        switch word.uppercased() {
        case "UNION": return ({ .set(.union, $0, $1) }, 0, false)
        case "INTERSECT": return ({ .set(.intersect, $0, $1) }, 0, false)
        case "MINUS": return ({ .set(.minus, $0, $1) }, 0, false)
        default: return nil
        }
    }

    private mutating func parseUnary() throws(PredicateFormatError) -> ExpressionNode {
        try enterNesting()
        defer { leaveNesting() }
        guard isSymbol("-") else { return try parsePostfix(parsePrimaryExpression()) }
        advance()
        let operand = try parseUnary()
        if case .constant(let value) = operand, let negated = Self.negate(value) {
            return .constant(negated)
        }
        return .function("from:subtract:", [.constant(0), operand])
    }

    private static func negate(_ value: Any?) -> Any? {
        switch value {
        case let int as Int: int == .min ? -Double(int) : -int
        case let uint as UInt64: uint == UInt64(Int64.max) + 1 ? Int(Int64.min) : -Double(uint)
        case let double as Double: -double
        default: nil
        }
    }

    // MARK: - Postfix

    private mutating func parsePostfix(_ base: ExpressionNode) throws(PredicateFormatError) -> ExpressionNode {
        var expression = base
        // The tree's depth, measured once at the first subscript and then kept up to date.
        var depth: Int?
        // Consecutive `.key`s, joined once: appending one by one would copy the path each time.
        var keys: [String] = []
        func flushKeys() {
            guard !keys.isEmpty else { return }
            if case .keyPath = expression {} else { depth = depth.map { $0 + 1 } }
            expression = Self.appendKey(keys.joined(separator: "."), to: expression)
            keys.removeAll(keepingCapacity: true)
        }
        while true {
            if isSymbol(".") {
                advance()
                if case .specifier(.keyPath, let argument) = current.kind {
                    // `$FETCH_SOURCE.%K`: the argument is the rest of the key path.
                    let token = current
                    advance()
                    flushKeys()
                    expression = try appendKeyPath(substitute(.keyPath, argument: argument, at: token), to: expression)
                    depth = nil
                    continue
                }
                guard case .identifier(let name, _) = current.kind else { throw unexpected("a key after '.'") }
                advance()
                keys.append(name)
            } else if isSymbol("[") {
                flushKeys()
                advance()
                let indexExpression: ExpressionNode
                if case .identifier(let name, escaped: false) = current.kind,
                   let symbol = PredicateIndexSymbol(rawValue: name.uppercased()) {
                    advance()
                    indexExpression = .constant(symbol)
                } else {
                    indexExpression = try parseExpression()
                }
                try expectSymbol("]")
                let baseDepth = depth ?? PredicateDepth.depth(of: expression)
                depth = try checkedDepth(max(baseDepth, PredicateDepth.depth(of: indexExpression)) + 1)
                expression = .function(BuiltinFunction.indexFunction, [expression, indexExpression])
            } else {
                flushKeys()
                return expression
            }
        }
    }

    /// `base.path` for a `%K` argument after a dot: its key path appended (`SELF` appends nothing).
    private func appendKeyPath(_ argument: ExpressionNode, to base: ExpressionNode) -> ExpressionNode {
        switch argument {
        case .keyPath(.evaluatedObject, let path): Self.appendKey(path, to: base)
        default: base
        }
    }

    /// `base.key`, merging into an existing key path so `a.b` is one node.
    static func appendKey(_ key: String, to base: ExpressionNode) -> ExpressionNode {
        if case .keyPath(let operand, let path) = base { return .keyPath(operand, path + "." + key) }
        return .keyPath(base, key)
    }

    // MARK: - Primaries

    private mutating func parsePrimaryExpression() throws(PredicateFormatError) -> ExpressionNode {
        let token = current
        switch token.kind {
        case .number(let literal):
            advance()
            return .constant(literal.value)
        case .string(let text):
            advance()
            return .constant(text)
        case .variable(let name):
            advance()
            return .variable(name)
        case .specifier(let specifier, let argument):
            advance()
            return try substitute(specifier, argument: argument, at: token)
        case .identifier(let name, let escaped):
            return try parseIdentifier(name, escaped: escaped)
        case .symbol("("):
            advance()
            let inner = try parseExpression()
            try expectSymbol(")")
            return inner
        case .symbol("{"):
            advance()
            let elements = try parseList(closing: "}")
            return .aggregate(elements)
        default:
            throw unexpected("an expression")
        }
    }

    /// Parses `a, b, c` up to and including `closing`.
    private mutating func parseList(closing: String) throws(PredicateFormatError) -> [ExpressionNode] {
        var elements: [ExpressionNode] = []
        if isSymbol(closing) {
            advance()
            return elements
        }
        while true {
            elements.append(try parseExpression())
            if isSymbol(closing) {
                advance()
                return elements
            }
            guard isSymbol(",") else { throw unexpected("',' or '\(closing)'") }
            advance()
        }
    }

    private mutating func parseIdentifier(_ name: String, escaped: Bool) throws(PredicateFormatError) -> ExpressionNode {
        let token = current
        if !escaped, let word = keyword() {
            advance()
            switch word {
            case "NULL", "NIL": return .constant(nil)
            case "TRUE", "YES": return .constant(true)
            case "FALSE", "NO": return .constant(false)
            case "SELF": return .evaluatedObject
            case "ANYKEY": return .anyKey
            case "SUBQUERY": return try parseSubquery()
            case "FUNCTION": return try parseCustomFunction()
            case "CAST": return try parseCast(at: token)
            case "TERNARY": return try parseTernary()
            case "FETCH":
                throw error(.unsupported, "FETCH expressions are not supported", at: token)
            default:
                throw error(.syntax, "'\(name)' is a reserved word; write #\(name) to use it as a key", at: token)
            }
        }
        advance()
        if !escaped, isSymbol("(") {
            return try parseFunctionCall(shortName: name, at: token)
        }
        if !escaped, isSymbol(":") {
            return try parseSelectorFunctionCall(firstPart: name, at: token)
        }
        return .keyPath(.evaluatedObject, name)
    }

    // MARK: - Functions

    private mutating func parseFunctionCall(shortName: String, at token: PredicateToken) throws(PredicateFormatError) -> ExpressionNode {
        advance()
        let arguments = try parseList(closing: ")")
        guard let name = BuiltinFunction.resolve(shortName: shortName, argumentCount: arguments.count) else {
            throw error(.syntax, "unknown function '\(shortName)'", at: token)
        }
        return try checkedFunction(name, arguments, at: token)
    }

    private mutating func parseSelectorFunctionCall(firstPart: String, at token: PredicateToken) throws(PredicateFormatError) -> ExpressionNode {
        var name = firstPart
        while isSymbol(":") {
            advance()
            name += ":"
            if case .identifier(let part, escaped: false) = current.kind, next.kind == .symbol(":") {
                advance()
                name += part
            }
        }
        try expectSymbol("(")
        return try checkedFunction(name, parseList(closing: ")"), at: token)
    }

    private func checkedFunction(_ name: String, _ arguments: [ExpressionNode], at token: PredicateToken) throws(PredicateFormatError) -> ExpressionNode {
        guard let arity = BuiltinFunction.arity[name], name != BuiltinFunction.indexFunction else {
            throw error(.syntax, "unknown function '\(name)'", at: token)
        }
        guard arity == arguments.count else {
            throw error(.syntax, "function '\(name)' takes \(arity) argument(s), not \(arguments.count)", at: token)
        }
        return .function(name, arguments)
    }

    private mutating func parseCustomFunction() throws(PredicateFormatError) -> ExpressionNode {
        try expectSymbol("(")
        let start = current
        let arguments = try parseList(closing: ")")
        guard arguments.count >= 2, let operand = arguments.first,
              case .constant(let selector as String) = arguments[1] else {
            throw error(.syntax, "FUNCTION needs a receiver and a selector name string", at: start)
        }
        return .customFunction(operand, selector, Array(arguments.dropFirst(2)))
    }

    private mutating func parseTernary() throws(PredicateFormatError) -> ExpressionNode {
        try expectSymbol("(")
        let condition = try parsePredicate()
        try expectSymbol(",")
        let whenTrue = try parseExpression()
        try expectSymbol(",")
        let whenFalse = try parseExpression()
        try expectSymbol(")")
        return .conditional(condition, whenTrue, whenFalse)
    }

    private mutating func parseSubquery() throws(PredicateFormatError) -> ExpressionNode {
        try expectSymbol("(")
        let collection = try parseExpression()
        try expectSymbol(",")
        guard case .variable(let variable) = current.kind else { throw unexpected("a $variable") }
        advance()
        try expectSymbol(",")
        let predicate = try parsePredicate()
        try expectSymbol(")")
        return .subquery(collection, variable, predicate)
    }

    private mutating func parseCast(at token: PredicateToken) throws(PredicateFormatError) -> ExpressionNode {
        try expectSymbol("(")
        let value = try parseExpression()
        try expectSymbol(",")
        let type = try parseExpression()
        try expectSymbol(")")
        guard case .constant(let typeName as String) = type else {
            return .function(BuiltinFunction.castFunction, [value, type])
        }
        guard case .constant(let constant) = value else {
            return .function(BuiltinFunction.castFunction, [value, type])
        }
        do {
            if let folded = try PredicateValue.foldCast(constant, to: typeName) { return .constant(folded) }
        } catch {
            throw self.error(.syntax, "cannot cast \(PredicateFormatter.formatConstant(constant)) to \(typeName)", at: token)
        }
        return .function(BuiltinFunction.castFunction, [value, type])
    }
}
