import Foundation

// MARK: - StringMatching

/// String operators: option folding, `LIKE` wildcards and `MATCHES` regular expressions.
package enum StringMatching {
    /// Applies `[c]` and `[d]`; `[n]` means the strings are already normalized, so nothing is folded.
    package static func fold(_ string: String, _ options: NSComparisonPredicate.Options) -> String {
        if options.contains(.normalized) { return string }
        var folding: String.CompareOptions = []
        if options.contains(.caseInsensitive) { folding.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { folding.insert(.diacriticInsensitive) }
        return folding.isEmpty ? string : string.folding(options: folding, locale: nil)
    }

    // MARK: - BEGINSWITH, ENDSWITH, CONTAINS

    // The SQLite store registers these same functions, so SQL and memory agree exactly.

    /// `BEGINSWITH`; an empty prefix is found nowhere, as with `NSString`'s `range(of:)`.
    package static func beginsWith(_ subject: String, _ prefix: String, options: NSComparisonPredicate.Options) -> Bool {
        !prefix.isEmpty && fold(subject, options).hasPrefix(fold(prefix, options))
    }

    /// `ENDSWITH`; an empty suffix is found nowhere.
    package static func endsWith(_ subject: String, _ suffix: String, options: NSComparisonPredicate.Options) -> Bool {
        !suffix.isEmpty && fold(subject, options).hasSuffix(fold(suffix, options))
    }

    /// `CONTAINS` (and `IN`) on strings: a substring test; an empty needle is found nowhere.
    package static func contains(_ string: String, _ needle: String, options: NSComparisonPredicate.Options) -> Bool {
        !needle.isEmpty && fold(string, options).contains(fold(needle, options))
    }

    // MARK: - LIKE

    /// `LIKE`: `*` matches any run of characters, `?` one character, `\` escapes either.
    ///
    /// - Complexity: O(*n* × *m*) in the worst case; no regular expression is built.
    package static func like(_ subject: String, pattern: String, options: NSComparisonPredicate.Options) -> Bool {
        let text = Array(fold(subject, options))
        var tokens: [LikeToken] = []
        var escaping = false
        for character in fold(pattern, options) {
            if escaping {
                tokens.append(.literal(character))
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else if character == "*" {
                if tokens.last != .anyRun { tokens.append(.anyRun) }
            } else if character == "?" {
                tokens.append(.anyOne)
            } else {
                tokens.append(.literal(character))
            }
        }
        if escaping { tokens.append(.literal("\\")) }
        return match(text, tokens)
    }

    private enum LikeToken: Equatable {
        case literal(Character), anyOne, anyRun
    }

    private static func match(_ text: [Character], _ tokens: [LikeToken]) -> Bool {
        var textIndex = 0, tokenIndex = 0
        var starToken = -1, starText = 0
        while textIndex < text.count {
            if tokenIndex < tokens.count {
                switch tokens[tokenIndex] {
                case .anyRun:
                    starToken = tokenIndex
                    starText = textIndex
                    tokenIndex += 1
                    continue
                case .anyOne:
                    textIndex += 1
                    tokenIndex += 1
                    continue
                case .literal(let character) where character == text[textIndex]:
                    textIndex += 1
                    tokenIndex += 1
                    continue
                case .literal:
                    break
                }
            }
            guard starToken >= 0 else { return false }
            tokenIndex = starToken + 1
            starText += 1
            textIndex = starText
        }
        while tokenIndex < tokens.count, tokens[tokenIndex] == .anyRun { tokenIndex += 1 }
        return tokenIndex == tokens.count
    }

    // MARK: - MATCHES

    /// `MATCHES`: the whole string must match the ICU regular expression.
    ///
    /// An invalid pattern matches nothing (Apple raises; outside input must not trap here).
    package static func matches(_ subject: String, pattern: String, options: NSComparisonPredicate.Options) -> Bool {
        var regexOptions: NSRegularExpression.Options = []
        if options.contains(.caseInsensitive) && !options.contains(.normalized) { regexOptions.insert(.caseInsensitive) }
        let diacritics: NSComparisonPredicate.Options = options.contains(.normalized) ? [] : options.intersection(.diacriticInsensitive)
        let text = fold(subject, diacritics)
        guard let compiled = RegexCache.shared.regex(fold(pattern, diacritics), options: regexOptions) else { return false }
        let range = NSRange(text.startIndex..<text.endIndex, in: text)
        if compiled.isWrapped {
            return compiled.regex.firstMatch(in: text, options: [], range: range) != nil
        }
        guard let match = compiled.regex.firstMatch(in: text, options: [.anchored], range: range) else { return false }
        return match.range == range
    }
}
