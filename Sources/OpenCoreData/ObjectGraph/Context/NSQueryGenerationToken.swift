import Foundation

/// A token naming a generation of the persistent stores that a context reads from.
///
/// ```swift
/// try context.setQueryGenerationFrom(.current)   // pin on the next read
/// let token = context.queryGenerationToken        // non-nil once the context has read
/// try other.setQueryGenerationFrom(token)         // read the same generation
/// ```
///
/// `current` asks a context to pin itself to the stores' generation when it next reads. Other
/// tokens name one generation while some context still reads from it; once none does, the
/// generation's snapshots are released and setting the token throws (docs/QueryGenerations.md).
/// Tokens are equal when they name the same generation, and archive with `NSKeyedArchiver`.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsquerygenerationtoken>.
public final class NSQueryGenerationToken: NSObject, NSCopying, Sendable {
    /// The generation named, or nil for `current`.
    package let generation: UUID?

    package init(generation: UUID?) {
        self.generation = generation
        super.init()
    }

    /// A token that tells a context to use the current generation, pinning it on its next read.
    public class var current: NSQueryGenerationToken { currentToken }

    private static let currentToken = NSQueryGenerationToken(generation: nil)

    /// Whether this is the `current` token.
    package var isCurrent: Bool { generation == nil }

    /// Tokens are immutable: a copy is the token itself.
    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSQueryGenerationToken else { return false }
        return generation == other.generation
    }

    public override var hash: Int { generation?.hashValue ?? 0 }

    public override var description: String {
        "<NSQueryGenerationToken: \(generation?.uuidString ?? "current")>"
    }
}

// MARK: - NSSecureCoding

extension NSQueryGenerationToken: NSSecureCoding {
    private static let generationKey = "OCDQueryGeneration"

    /// Tokens decode only the string they hold.
    public static var supportsSecureCoding: Bool { true }

    /// Encodes the generation's identifier (an empty string for `current`).
    public func encode(with coder: NSCoder) {
        coder.encode(NSString(string: generation?.uuidString ?? ""), forKey: Self.generationKey)
    }

    /// Decodes a token archived by `encode(with:)`; nil for anything else.
    public convenience init?(coder: NSCoder) {
        guard let text = coder.decodeObject(of: NSString.self, forKey: Self.generationKey).map(String.init) else { return nil }
        if text.isEmpty {
            self.init(generation: nil)
            return
        }
        guard let generation = UUID(uuidString: text) else { return nil }
        self.init(generation: generation)
    }
}
