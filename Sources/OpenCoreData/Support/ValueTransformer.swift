import Foundation
import Synchronization

#if !canImport(Darwin)
/// The name of a registered value transformer.
///
/// swift-corelibs-foundation has no `ValueTransformer`; OpenCoreData declares Apple's API so
/// transformable attributes and their custom transformers compile unchanged on Linux.
public struct NSValueTransformerName: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// The secure keyed-unarchiving transformer (Apple's default for transformable attributes).
    public static let secureUnarchiveFromDataTransformerName = NSValueTransformerName("NSSecureUnarchiveFromData")
    /// The (insecure) keyed-unarchiving transformer.
    public static let keyedUnarchiveFromDataTransformerName = NSValueTransformerName("NSKeyedUnarchiveFromData")
    /// Negates booleans.
    public static let negateBooleanTransformerName = NSValueTransformerName("NSNegateBoolean")
    /// Tests for nil.
    public static let isNilTransformerName = NSValueTransformerName("NSIsNil")
    /// Tests for non-nil.
    public static let isNotNilTransformerName = NSValueTransformerName("NSIsNotNil")
}

/// Converts values from one representation to another; registered by name for transformable attributes.
///
/// Mirrors <https://developer.apple.com/documentation/foundation/valuetransformer>.
open class ValueTransformer: NSObject, @unchecked Sendable {
    // @unchecked Sendable: the base class holds no state; subclasses keep Apple's contract that
    // transformers are stateless and usable from any thread.

    private static let registry = Mutex<[String: ValueTransformer]>([
        NSValueTransformerName.secureUnarchiveFromDataTransformerName.rawValue: NSSecureUnarchiveFromDataTransformer(),
        NSValueTransformerName.keyedUnarchiveFromDataTransformerName.rawValue: NSSecureUnarchiveFromDataTransformer(),
        NSValueTransformerName.negateBooleanTransformerName.rawValue: BooleanTransformer(negate: true),
        NSValueTransformerName.isNilTransformerName.rawValue: NilTestTransformer(expectNil: true),
        NSValueTransformerName.isNotNilTransformerName.rawValue: NilTestTransformer(expectNil: false),
    ])

    /// Registers a transformer under a name (nil removes it).
    open class func setValueTransformer(_ transformer: ValueTransformer?, forName name: NSValueTransformerName) {
        registry.withLock { $0[name.rawValue] = transformer }
    }

    /// The transformer registered under a name.
    public convenience init?(forName name: NSValueTransformerName) {
        guard ValueTransformer.registry.withLock({ $0[name.rawValue] }) != nil else { return nil }
        self.init(registeredName: name.rawValue)
    }

    /// The transformer registered under a name (Apple's factory spelling).
    open class func registered(forName name: NSValueTransformerName) -> ValueTransformer? {
        registry.withLock { $0[name.rawValue] }
    }

    /// The names of all registered transformers.
    open class func valueTransformerNames() -> [NSValueTransformerName] {
        registry.withLock { $0.keys.sorted().map(NSValueTransformerName.init(rawValue:)) }
    }

    private var forwardTarget: ValueTransformer?

    public override init() { super.init() }

    private init(registeredName: String) {
        forwardTarget = ValueTransformer.registry.withLock { $0[registeredName] }
        super.init()
    }

    /// The class of transformed values.
    open class func transformedValueClass() -> AnyClass { NSObject.self }

    /// Whether `reverseTransformedValue(_:)` is supported.
    open class func allowsReverseTransformation() -> Bool { false }

    /// Transforms a value (for transformable attributes: the value into the stored `Data`).
    open func transformedValue(_ value: Any?) -> Any? {
        forwardTarget?.transformedValue(value) ?? value
    }

    /// Transforms a value back (for transformable attributes: the stored `Data` into the value).
    open func reverseTransformedValue(_ value: Any?) -> Any? {
        forwardTarget?.reverseTransformedValue(value) ?? value
    }
}

/// Unarchives `Data` into objects of its allowed classes, and archives objects back into `Data`.
///
/// As Apple's: the forward direction, `transformedValue(_:)`, takes the archived `Data` and
/// returns the object; `reverseTransformedValue(_:)` archives an object (secure coding). Core
/// Data runs this kind of transformer backwards for transformable attributes: the stored bytes
/// come from `reverseTransformedValue(_:)`. Subclasses list their classes in
/// `allowedTopLevelClasses`:
///
/// ```swift
/// final class ColorTransformer: NSSecureUnarchiveFromDataTransformer {
///     override class var allowedTopLevelClasses: [AnyClass] { [Color.self] }
/// }
/// ValueTransformer.setValueTransformer(ColorTransformer(), forName: .init("ColorTransformer"))
/// ```
///
/// Mirrors <https://developer.apple.com/documentation/foundation/nssecureunarchivefromdatatransformer>.
open class NSSecureUnarchiveFromDataTransformer: ValueTransformer, @unchecked Sendable {
    /// The classes unarchiving allows at the top level.
    open class var allowedTopLevelClasses: [AnyClass] {
        [NSArray.self, NSDictionary.self, NSSet.self, NSString.self, NSNumber.self, NSDate.self, NSData.self, NSURL.self, NSUUID.self, NSNull.self]
    }

    open override class func allowsReverseTransformation() -> Bool { true }
    open override class func transformedValueClass() -> AnyClass { NSObject.self }

    /// The object unarchived from `Data`; nil when the bytes are not a keyed archive whose
    /// top-level object is of an allowed class.
    ///
    /// The archive is checked with OpenCoreData's bounds-checked property-list reader first:
    /// the bytes come from store files, and Foundation's unarchiver can trap on corrupt ones.
    open override func transformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data, KeyedArchiveCheck.isReadable(data) else { return nil }
        let allowed = type(of: self).allowedTopLevelClasses
        guard let object = try? NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(data) else { return nil }
        guard let instance = object as? NSObject,
              allowed.contains(where: { instance.isKind(of: $0) }) else { return nil }
        return object
    }

    /// The secure keyed archive of an object; nil for nil or an object that cannot be archived.
    open override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let value, !(value is NSNull) else { return nil }
        return try? NSKeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: true)
    }
}

private final class BooleanTransformer: ValueTransformer, @unchecked Sendable {
    let negate: Bool
    init(negate: Bool) { self.negate = negate; super.init() }
    override func transformedValue(_ value: Any?) -> Any? {
        guard let bool = value as? Bool else { return nil }
        return NSNumber(value: negate ? !bool : bool)
    }
    override func reverseTransformedValue(_ value: Any?) -> Any? { transformedValue(value) }
}

private final class NilTestTransformer: ValueTransformer, @unchecked Sendable {
    let expectNil: Bool
    init(expectNil: Bool) { self.expectNil = expectNil; super.init() }
    override func transformedValue(_ value: Any?) -> Any? {
        let isNil = value == nil || value is NSNull
        return NSNumber(value: isNil == expectNil)
    }
}
#endif
