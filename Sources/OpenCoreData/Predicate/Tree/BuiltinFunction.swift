import Foundation

// MARK: - BuiltinFunction

/// Apple's predefined `NSExpression` functions, by selector name.
///
/// See <https://developer.apple.com/documentation/foundation/nsexpression/init(forfunction:arguments:)>.
/// The parser accepts both the selector form `sum:(x)` and the short form `sum(x)`.
package enum BuiltinFunction {
    /// Every supported function name with its number of arguments.
    package static let arity: [String: Int] = [
        // Statistics over a collection.
        "average:": 1, "sum:": 1, "count:": 1, "min:": 1, "max:": 1,
        "median:": 1, "mode:": 1, "stddev:": 1,
        // Arithmetic.
        "add:to:": 2, "from:subtract:": 2, "multiply:by:": 2, "divide:by:": 2,
        "modulus:by:": 2, "abs:": 1, "sqrt:": 1, "log:": 1, "ln:": 1,
        "raise:toPower:": 2, "exp:": 1, "ceiling:": 1, "trunc:": 1, "floor:": 1,
        // Random numbers.
        "random": 0, "random:": 1,
        // Bitwise integer operations.
        "bitwiseAnd:with:": 2, "bitwiseOr:with:": 2, "bitwiseXor:with:": 2,
        "leftshift:by:": 2, "rightshift:by:": 2, "onesComplement:": 1,
        // Dates and strings.
        "now": 0, "lowercase:": 1, "uppercase:": 1, "noindex:": 1, "canonical:": 1,
        // Produced by syntax rather than by name.
        castFunction: 2, indexFunction: 2,
    ]

    /// `CAST(value, 'Type')`.
    package static let castFunction = "castObject:toType:"
    /// `collection[index]`, `collection[FIRST]`, …
    package static let indexFunction = "objectFrom:withIndex:"

    /// Maps the short spelling (`add`, `lowercase`, `now`) to the selector name.
    package static let shortNames: [String: String] = {
        var names: [String: String] = [:]
        for name in arity.keys where name != castFunction && name != indexFunction {
            let base = String(name.prefix { $0 != ":" })
            let current = names[base]
            // `random` and `random:` share a base; keep the zero-argument one for `random()`.
            if current == nil || (current?.count ?? 0) > name.count { names[base] = name }
        }
        return names
    }()

    /// The selector name for a call written `base(…)` with `count` arguments.
    package static func resolve(shortName base: String, argumentCount count: Int) -> String? {
        if base == "random" { return count == 0 ? "random" : "random:" }
        return shortNames[base]
    }

    // MARK: - Infix operators

    /// Functions printed and parsed as infix arithmetic operators, with their precedence.
    package static let infixOperators: [String: (symbol: String, precedence: Int)] = [
        "add:to:": ("+", 1), "from:subtract:": ("-", 1),
        "multiply:by:": ("*", 2), "divide:by:": ("/", 2),
        "raise:toPower:": ("**", 3),
    ]

    /// The function name for an infix operator symbol.
    package static func function(forOperator symbol: String) -> String? {
        infixOperators.first { $0.value.symbol == symbol }?.key
    }
}
