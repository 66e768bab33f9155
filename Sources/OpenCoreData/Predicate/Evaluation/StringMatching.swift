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
        if prefix.isEmpty { return false }
        if let answer = asciiAffix(subject, prefix, atEnd: false, options) { return answer }
        return fold(subject, options).hasPrefix(fold(prefix, options))
    }

    /// `ENDSWITH`; an empty suffix is found nowhere.
    package static func endsWith(_ subject: String, _ suffix: String, options: NSComparisonPredicate.Options) -> Bool {
        if suffix.isEmpty { return false }
        if let answer = asciiAffix(subject, suffix, atEnd: true, options) { return answer }
        return fold(subject, options).hasSuffix(fold(suffix, options))
    }

    /// `hasPrefix`/`hasSuffix` after folding, answered on the bytes when both strings are ASCII.
    private static func asciiAffix(_ subject: String, _ affix: String, atEnd: Bool, _ options: NSComparisonPredicate.Options) -> Bool? {
        subject.utf8.withContiguousStorageIfAvailable { text -> Bool? in
            affix.utf8.withContiguousStorageIfAvailable { part -> Bool? in
                asciiAffix(UnsafeRawBufferPointer(text), UnsafeRawBufferPointer(part), atEnd: atEnd, options)
            } ?? nil
        } ?? nil
    }

    /// `BEGINSWITH` (or `ENDSWITH` when `atEnd`) on UTF-8 bytes when both are ASCII, which is
    /// autocomplete's common case and runs per row in SQL: folding then only lowercases for
    /// `[c]` and leaves the rest, and every byte is a character except that `\r\n` is one, so
    /// an affix may not end inside it. Nil when either is not ASCII; false for an empty affix.
    package static func asciiAffix(_ text: UnsafeRawBufferPointer, _ part: UnsafeRawBufferPointer, atEnd: Bool,
                                   _ options: NSComparisonPredicate.Options) -> Bool? {
        guard text.allSatisfy({ $0 < 0x80 }), part.allSatisfy({ $0 < 0x80 }) else { return nil }
        guard !part.isEmpty else { return false }
        guard part.count <= text.count else { return false }
        let lowercase = options.contains(.caseInsensitive) && !options.contains(.normalized)
        let start = atEnd ? text.count - part.count : 0
        for offset in 0..<part.count {
            var a = text[start + offset], b = part[offset]
            if lowercase {
                if a >= 0x41 && a <= 0x5A { a += 0x20 }
                if b >= 0x41 && b <= 0x5A { b += 0x20 }
            }
            if a != b { return false }
        }
        // A `\r` ending a prefix (or a `\n` starting a suffix) splits a `\r\n` character.
        if !atEnd, part.last == 0x0D, part.count < text.count, text[part.count] == 0x0A { return false }
        if atEnd, part.first == 0x0A, start > 0, text[start - 1] == 0x0D { return false }
        return true
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
        // Bounded in time: a backtracking pattern from outside must not hang (see RegexBudget).
        if RegexBudget.isExhausted { return false }
        let range = NSRange(text.startIndex..<text.endIndex, in: text)
        if compiled.isWrapped {
            return RegexBudget.firstMatch(compiled.regex, in: text, options: [], range: range, pattern: pattern)
        }
        return RegexBudget.firstMatch(compiled.regex, in: text, options: [.anchored], range: range, pattern: pattern, spanning: range)
    }
}
