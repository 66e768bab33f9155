import Foundation

// MARK: - RegexCache

/// Compiled `MATCHES` patterns, so evaluating a predicate over many objects compiles once.
///
/// `@unchecked Sendable`: `entries` is only read or written while `lock` is held; the cached
/// `NSRegularExpression`s are immutable once built.
package final class RegexCache: @unchecked Sendable {
    /// A compiled pattern; `isWrapped` when it was compiled as `\A(?:pattern)\z`.
    package struct Compiled {
        package let regex: NSRegularExpression
        package let isWrapped: Bool
    }

    /// Patterns are told apart by their exact scalars: Swift's `==` would take a decomposed
    /// pattern (`Zoe\u{308}`) for a cached precomposed one (`Zoë`), and ICU, like Apple's
    /// `NSRegularExpression`, matches code points, not canonical equivalents.
    private struct Key: Hashable {
        let pattern: String
        let options: UInt

        static func == (lhs: Key, rhs: Key) -> Bool {
            lhs.options == rhs.options && lhs.pattern.utf8.elementsEqual(rhs.pattern.utf8)
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(options)
            hasher.combine(pattern.utf8.count)
            for byte in pattern.utf8 { hasher.combine(byte) }
        }
    }

    /// The process-wide cache.
    package static let shared = RegexCache(capacity: 256)

    private let lock = NSLock()
    private var entries: [Key: Compiled?] = [:]
    private let capacity: Int

    private init(capacity: Int) {
        self.capacity = capacity
    }

    /// The compiled pattern, or `nil` when the pattern is not a valid regular expression.
    package func regex(_ pattern: String, options: NSRegularExpression.Options) -> Compiled? {
        let key = Key(pattern: pattern, options: options.rawValue)
        if let cached = lock.withLock({ entries[key] }) { return cached }
        let compiled = Self.compile(pattern, options: options)
        lock.withLock {
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = compiled
        }
        return compiled
    }

    /// Compiles for whole-string matching. Wrapping in `\A(?:…)\z` is exact unless the pattern
    /// holds `\Q` quoting or `#` comments, which could swallow the wrapper; those fall back to an
    /// anchored match that must span the whole string.
    private static func compile(_ pattern: String, options: NSRegularExpression.Options) -> Compiled? {
        guard let plain = try? NSRegularExpression(pattern: pattern, options: options) else { return nil }
        if !pattern.contains("\\Q") && !pattern.contains("#"),
           let wrapped = try? NSRegularExpression(pattern: "\\A(?:" + pattern + ")\\z", options: options) {
            return Compiled(regex: wrapped, isWrapped: true)
        }
        return Compiled(regex: plain, isWrapped: false)
    }
}
