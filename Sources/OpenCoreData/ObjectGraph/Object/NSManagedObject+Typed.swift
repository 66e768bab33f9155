import Foundation

/// A Swift type that a `@Managed` attribute property can have directly.
///
/// The conversions run on every typed property access, so they are simple and inlinable.
public protocol ManagedAttributeValue {
    /// The value read from an attribute's store form; nil when the form does not fit.
    static func fromManagedStore(_ value: StoreValueRepresentation) -> Self?
    /// The value's store form.
    var managedStoreValue: StoreValueRepresentation { get }
    /// A placeholder used while probing key paths.
    static var managedPlaceholder: Self { get }
}

/// An opaque store form of an attribute value (what `ManagedAttributeValue` converts to and from).
public struct StoreValueRepresentation {
    package let value: StoreValue
    package init(_ value: StoreValue) { self.value = value }
}

/// What a typed accessor reads; see `NSManagedObject._managedRead(forKey:)`.
@usableFromInline
package enum ManagedRead {
    /// A key path is being probed: the key was recorded, there is no value.
    case recorded
    /// A transformable (or undefined-type) attribute's object.
    case custom(Any?)
    /// An attribute value in store form.
    case store(StoreValueRepresentation)
}

extension Int64: ManagedAttributeValue {
    @inlinable public static func fromManagedStore(_ value: StoreValueRepresentation) -> Int64? { value.int }
    public var managedStoreValue: StoreValueRepresentation { StoreValueRepresentation(.int(self)) }
    public static var managedPlaceholder: Int64 { 0 }
}

extension Int: ManagedAttributeValue {
    @inlinable public static func fromManagedStore(_ value: StoreValueRepresentation) -> Int? { value.int.map { Int(truncatingIfNeeded: $0) } }
    public var managedStoreValue: StoreValueRepresentation { StoreValueRepresentation(.int(Int64(self))) }
    public static var managedPlaceholder: Int { 0 }
}

extension Int32: ManagedAttributeValue {
    @inlinable public static func fromManagedStore(_ value: StoreValueRepresentation) -> Int32? { value.int.map { Int32(truncatingIfNeeded: $0) } }
    public var managedStoreValue: StoreValueRepresentation { StoreValueRepresentation(.int(Int64(self))) }
    public static var managedPlaceholder: Int32 { 0 }
}

extension Int16: ManagedAttributeValue {
    @inlinable public static func fromManagedStore(_ value: StoreValueRepresentation) -> Int16? { value.int.map { Int16(truncatingIfNeeded: $0) } }
    public var managedStoreValue: StoreValueRepresentation { StoreValueRepresentation(.int(Int64(self))) }
    public static var managedPlaceholder: Int16 { 0 }
}

extension Bool: ManagedAttributeValue {
    @inlinable public static func fromManagedStore(_ value: StoreValueRepresentation) -> Bool? { value.int.map { $0 != 0 } }
    public var managedStoreValue: StoreValueRepresentation { StoreValueRepresentation(.int(self ? 1 : 0)) }
    public static var managedPlaceholder: Bool { false }
}

extension Double: ManagedAttributeValue {
    @inlinable public static func fromManagedStore(_ value: StoreValueRepresentation) -> Double? { value.double }
    public var managedStoreValue: StoreValueRepresentation { StoreValueRepresentation(.double(self)) }
    public static var managedPlaceholder: Double { 0 }
}

extension Float: ManagedAttributeValue {
    @inlinable public static func fromManagedStore(_ value: StoreValueRepresentation) -> Float? { value.double.map { Float($0) } }
    public var managedStoreValue: StoreValueRepresentation { StoreValueRepresentation(.double(Double(self))) }
    public static var managedPlaceholder: Float { 0 }
}

extension String: ManagedAttributeValue {
    public static func fromManagedStore(_ value: StoreValueRepresentation) -> String? {
        if case .string(let string) = value.value { return string }
        return nil
    }
    public var managedStoreValue: StoreValueRepresentation { StoreValueRepresentation(.string(self)) }
    public static var managedPlaceholder: String { "" }
}

extension Date: ManagedAttributeValue {
    public static func fromManagedStore(_ value: StoreValueRepresentation) -> Date? {
        switch value.value {
        case .date(let date): return date
        case .double(let seconds): return Date(timeIntervalSinceReferenceDate: seconds)
        case .int(let seconds): return Date(timeIntervalSinceReferenceDate: Double(seconds))
        default: return nil
        }
    }
    public var managedStoreValue: StoreValueRepresentation { StoreValueRepresentation(.date(self)) }
    public static var managedPlaceholder: Date { Date(timeIntervalSinceReferenceDate: 0) }
}

extension Data: ManagedAttributeValue {
    public static func fromManagedStore(_ value: StoreValueRepresentation) -> Data? {
        if case .data(let data) = value.value { return data }
        return nil
    }
    public var managedStoreValue: StoreValueRepresentation { StoreValueRepresentation(.data(self)) }
    public static var managedPlaceholder: Data { Data() }
}

extension UUID: ManagedAttributeValue {
    public static func fromManagedStore(_ value: StoreValueRepresentation) -> UUID? {
        switch value.value {
        case .uuid(let uuid): return uuid
        case .data(let data): return AttributeConversion.uuid(from: data)
        case .string(let string): return UUID(uuidString: string)
        default: return nil
        }
    }
    public var managedStoreValue: StoreValueRepresentation { StoreValueRepresentation(.uuid(self)) }
    public static var managedPlaceholder: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
}

extension URL: ManagedAttributeValue {
    public static func fromManagedStore(_ value: StoreValueRepresentation) -> URL? {
        switch value.value {
        case .uri(let url): return url
        case .string(let string): return URL(string: string)
        default: return nil
        }
    }
    public var managedStoreValue: StoreValueRepresentation { StoreValueRepresentation(.uri(self)) }
    public static var managedPlaceholder: URL { URL(string: "x-placeholder:")! }
}

extension Decimal: ManagedAttributeValue {
    public static func fromManagedStore(_ value: StoreValueRepresentation) -> Decimal? {
        switch value.value {
        case .decimal(let decimal): return decimal
        case .double(let double): return Decimal(double)
        case .int(let int): return Decimal(int)
        default: return nil
        }
    }
    public var managedStoreValue: StoreValueRepresentation { StoreValueRepresentation(.decimal(self)) }
    public static var managedPlaceholder: Decimal { 0 }
}

extension StoreValueRepresentation {
    @usableFromInline var int: Int64? {
        switch value {
        case .int(let int): return int
        case .double(let double): return Int64(exactly: double.rounded(.towardZero))
        case .decimal(let decimal): return NSDecimalNumber(decimal: decimal).int64Value
        default: return nil
        }
    }

    @usableFromInline var double: Double? {
        switch value {
        case .double(let double): return double
        case .int(let int): return Double(int)
        case .decimal(let decimal): return NSDecimalNumber(decimal: decimal).doubleValue
        default: return nil
        }
    }
}

// MARK: - The accessors `@Managed` expands to

extension NSManagedObject {
    // The attribute accessors are @inlinable so that each property's getter and setter is
    // specialized for its type in the client module: an unspecialized generic call (witness
    // tables, values passed indirectly) cost more than the read itself. The type-independent
    // work lives in the non-generic `_managedRead` / `_setManagedStoreValue`.

    /// Reads a non-optional attribute (`@Managed var done: Bool`); nil in the store reads as the type's zero.
    @inlinable
    public func managedValue<Value: ManagedAttributeValue>(forKey key: String) -> Value {
        switch _managedRead(forKey: key) {
        case .recorded, .custom: return Value.managedPlaceholder
        case .store(let value): return Value.fromManagedStore(value) ?? Value.managedPlaceholder
        }
    }

    /// Reads an optional attribute (`@Managed var title: String?`).
    @inlinable
    public func managedValue<Value: ManagedAttributeValue>(forKey key: String) -> Value? {
        switch _managedRead(forKey: key) {
        case .recorded: return nil
        case .custom(let value): return value as? Value
        case .store(let value): return Value.fromManagedStore(value)
        }
    }

    /// Writes a non-optional attribute.
    @inlinable
    public func setManagedValue<Value: ManagedAttributeValue>(_ value: Value, forKey key: String) {
        if !_setManagedStoreValue(value.managedStoreValue, forKey: key) { setValue(value, forKey: key) }
    }

    /// Writes an optional attribute.
    @inlinable
    public func setManagedValue<Value: ManagedAttributeValue>(_ value: Value?, forKey key: String) {
        guard let value else {
            if !_setManagedStoreValue(nil, forKey: key) { setValue(nil, forKey: key) }
            return
        }
        setManagedValue(value, forKey: key)
    }

    /// The value behind a typed attribute accessor: nothing while a key path is being probed, the
    /// object of a transformable, or a value in store form. Fires the fault.
    @usableFromInline
    package final func _managedRead(forKey key: String) -> ManagedRead {
        if let recorder = keyRecorder { recorder.record(key); return .recorded }
        let index = slotIndex(forKey: key)
        if faulted { fireFaultIfNeeded() }
        if readsCommitted { return .store(StoreValueRepresentation(committedStoreValue(at: index))) }
        guard index < storedSlots.count else { return .store(StoreValueRepresentation(.null)) }
        switch storedSlots[index] {
        case .value(let value): return .store(StoreValueRepresentation(value))
        case .custom(let value): return .custom(value)
        default: return .store(StoreValueRepresentation(.null))
        }
    }

    /// Writes a typed attribute value in store form (nil: no value), with change tracking.
    /// Returns false, writing nothing, when the key is a relationship or a transformable: the
    /// caller then goes through `setValue(_:forKey:)`.
    @usableFromInline
    package final func _setManagedStoreValue(_ value: StoreValueRepresentation?, forKey key: String) -> Bool {
        _setManagedStoreValue(value, forKey: key, notifying: true)
    }

    /// Writes a typed attribute value in store form as `setPrimitiveValue(_:forKey:)` does: the
    /// change is tracked, but `willChangeValue`/`didChangeValue` are not called.
    @usableFromInline
    package final func _setManagedPrimitiveStoreValue(_ value: StoreValueRepresentation?, forKey key: String) -> Bool {
        _setManagedStoreValue(value, forKey: key, notifying: false)
    }

    @inline(__always)
    private func _setManagedStoreValue(_ value: StoreValueRepresentation?, forKey key: String, notifying: Bool) -> Bool {
        let index = slotIndex(forKey: key)
        guard !layout.isRelationship[index], !AttributeConversion.isCustom(layout.attributeTypes[index]) else { return false }
        if notifying && layout.hasDerivedAttributes { checkNotDerived(index, key) }
        if notifying { willChangeValue(forKey: key) }
        setStoreValue(value.map { normalized($0.value, at: index) } ?? .null, at: index)
        if notifying { didChangeValue(forKey: key) }
        return true
    }

    /// Reads a to-one relationship (`@Managed var location: Location?`).
    public func managedValue<Destination: NSManagedObject>(forKey key: String) -> Destination? {
        if let recorder = keyRecorder {
            recorder.record(key)
            // Hand back a probe of the destination, so `\Todo.location?.placeName` records both keys.
            guard let destination = (layout.propertiesByName[key] as? NSRelationshipDescription)?.destinationEntity else { return nil }
            let probe = Destination(entity: destination, insertInto: nil)
            probe.keyRecorder = recorder
            return probe
        }
        return resolveToOne(at: slotIndex(forKey: key)) as? Destination
    }

    /// Writes a to-one relationship, maintaining the inverse.
    public func setManagedValue<Destination: NSManagedObject>(_ value: Destination?, forKey key: String) {
        setValue(value, forKey: key)
    }

    /// Reads a to-many relationship as a typed set (`@Managed var tags: Set<Tag>`).
    public func managedValue<Destination: NSManagedObject>(forKey key: String) -> Set<Destination> {
        if let recorder = keyRecorder { recorder.record(key); return [] }
        let storage = loadedToMany(at: slotIndex(forKey: key))
        return Set(storage.objects.compactMap { $0 as? Destination })
    }

    /// Writes a to-many relationship from a typed set.
    public func setManagedValue<Destination: NSManagedObject>(_ value: Set<Destination>, forKey key: String) {
        setValue(Array(value), forKey: key)
    }

    /// Reads an ordered to-many relationship as an array (`@Managed var steps: [Step]`).
    public func managedValue<Destination: NSManagedObject>(forKey key: String) -> [Destination] {
        if let recorder = keyRecorder { recorder.record(key); return [] }
        let storage = loadedToMany(at: slotIndex(forKey: key))
        return storage.objects.compactMap { $0 as? Destination }
    }

    /// Writes an ordered to-many relationship from an array.
    public func setManagedValue<Destination: NSManagedObject>(_ value: [Destination], forKey key: String) {
        setValue(value, forKey: key)
    }

    /// Reads a to-many relationship as `NSSet?`, as Xcode generates.
    @_disfavoredOverload  // so that an `NSObject?` property reads through the `NSObject?` overload
    public func managedValue(forKey key: String) -> NSSet? {
        if let recorder = keyRecorder { recorder.record(key); return nil }
        let value = self.value(forKey: key)
        if let ordered = value as? NSOrderedSet { return NSSet(array: ordered.array) }
        return value as? NSSet
    }

    /// Writes a to-many relationship from an `NSSet?`.
    public func setManagedValue(_ value: NSSet?, forKey key: String) {
        setValue(value, forKey: key)
    }

    /// Reads an ordered to-many relationship as `NSOrderedSet?`, as Xcode generates.
    @_disfavoredOverload  // so that an `NSObject?` property reads through the `NSObject?` overload
    public func managedValue(forKey key: String) -> NSOrderedSet? {
        if let recorder = keyRecorder { recorder.record(key); return nil }
        let value = self.value(forKey: key)
        if let set = value as? NSSet { return NSOrderedSet(array: set.allObjects) }
        return value as? NSOrderedSet
    }

    /// Writes an ordered to-many relationship from an `NSOrderedSet?`.
    public func setManagedValue(_ value: NSOrderedSet?, forKey key: String) {
        setValue(value, forKey: key)
    }

    /// Reads a transformable as `NSObject?`, as Xcode generates when it names no custom class.
    ///
    /// The `NSSet?`, `NSOrderedSet?` and to-one readers, whose results all convert to `NSObject?`,
    /// are disfavored so that they don't make such a property ambiguous.
    public func managedValue(forKey key: String) -> NSObject? {
        if let recorder = keyRecorder { recorder.record(key); return nil }
        return value(forKey: key) as? NSObject
    }

    /// Reads any other property type (transformable values, `NSNumber?`, …) through `value(forKey:)`.
    @_disfavoredOverload
    public func managedValue<Value>(forKey key: String) -> Value {
        if let recorder = keyRecorder {
            recorder.record(key)
            if let placeholder = Optional<Any>.none as? Value { return placeholder }
            if let type = Value.self as? any ManagedPlaceholderConstructible.Type, let value = type.init() as? Value { return value }
            CoreDataError.programmerError("Cannot probe key '\(key)' of type \(Value.self).")
        }
        let value = self.value(forKey: key)
        if let typed = value as? Value { return typed }
        if let placeholder = Optional<Any>.none as? Value { return placeholder }
        CoreDataError.programmerError("Property '\(key)' of entity '\(entity.name ?? "?")' holds \(AttributeConversion.typeName(of: value)), not \(Value.self).")
    }

    /// Writes any other property type through `setValue(_:forKey:)`.
    @_disfavoredOverload
    public func setManagedValue<Value>(_ value: Value, forKey key: String) {
        // `Value` is often an optional (`NSNumber?`): pass its payload, not an `Optional` boxed in `Any`.
        setValue(flattenedOptional(value), forKey: key)
    }

    // MARK: - Primitive accessors (`@Managed var primitiveTitle: String?`)

    // Apple implements `primitive<Key>` for every modeled property. `@Managed` reads them with
    // the `managedValue(forKey:)` overloads of `<key>` and writes them with these, which behave
    // as `setPrimitiveValue(_:forKey:)`: no `willChangeValue`/`didChangeValue`.

    /// Writes a non-optional attribute's primitive value (`@Managed var primitiveCount: Int64`).
    @inlinable
    public func setManagedPrimitiveValue<Value: ManagedAttributeValue>(_ value: Value, forKey key: String) {
        if !_setManagedPrimitiveStoreValue(value.managedStoreValue, forKey: key) { setPrimitiveValue(value, forKey: key) }
    }

    /// Writes an optional attribute's primitive value (`@Managed var primitiveTitle: String?`).
    @inlinable
    public func setManagedPrimitiveValue<Value: ManagedAttributeValue>(_ value: Value?, forKey key: String) {
        guard let value else {
            if !_setManagedPrimitiveStoreValue(nil, forKey: key) { setPrimitiveValue(nil, forKey: key) }
            return
        }
        setManagedPrimitiveValue(value, forKey: key)
    }

    /// Writes any other property's primitive value (relationships, transformables) through
    /// `setPrimitiveValue(_:forKey:)`.
    @_disfavoredOverload
    public func setManagedPrimitiveValue<Value>(_ value: Value, forKey key: String) {
        setPrimitiveValue(flattenedOptional(value), forKey: key)
    }

    // MARK: - Helpers

    @inline(__always)
    func slotIndex(forKey key: String) -> Int {
        guard let index = layout.index(forKey: key) else { unknownKey(key) }
        return index
    }

    /// Converts a typed value to the attribute's own store form (an Int written to a Double attribute, …).
    func normalized(_ value: StoreValue, at index: Int) -> StoreValue {
        let type = layout.attributeTypes[index]
        switch (value, type) {
        case (.int(let int), .doubleAttributeType): return .double(Double(int))
        case (.int(let int), .floatAttributeType): return .double(Double(Float(int)))
        case (.double(let double), .floatAttributeType): return .double(Double(Float(double)))
        case (.double(let double), .integer16AttributeType), (.double(let double), .integer32AttributeType), (.double(let double), .integer64AttributeType):
            return .int(Int64(exactly: double.rounded(.towardZero)) ?? 0)
        case (.int(let int), .decimalAttributeType): return .decimal(Decimal(int))
        case (.double(let double), .decimalAttributeType): return .decimal(Decimal(double))
        case (.int(let int), .booleanAttributeType): return .int(int != 0 ? 1 : 0)
        default:
            return value
        }
    }
}

/// Unwraps optionals at any depth: `NSNumber?.some(n)` is `n`, `.none` is nil, other values are themselves.
private func flattenedOptional<Value>(_ value: Value) -> Any? {
    if let optional = value as? any OptionalPayload { return optional.payload }
    return value
}

/// An optional whose payload can be read without knowing its type.
private protocol OptionalPayload {
    var payload: Any? { get }
}

extension Optional: OptionalPayload {
    fileprivate var payload: Any? {
        guard case .some(let wrapped) = self else { return nil }
        if let nested = wrapped as? any OptionalPayload { return nested.payload }
        return wrapped
    }
}

/// Types with an empty value, used while probing key paths of non-optional transformable properties.
public protocol ManagedPlaceholderConstructible { init() }
extension Array: ManagedPlaceholderConstructible {}
extension Dictionary: ManagedPlaceholderConstructible {}
extension Set: ManagedPlaceholderConstructible {}

// MARK: - Key path names

/// Records the key a `@Managed` accessor reads while a key path is probed.
package final class KeyRecorder {
    package private(set) var keys: [String] = []
    func record(_ key: String) { keys.append(key) }
}

extension NSManagedObject {
    /// The model key a Swift key path on a `@Managed` subclass reads (`\Todo.title` → "title").
    ///
    /// Swift key paths to computed properties carry no name on Linux, so the name is found by
    /// reading the property on a probe object that records the key instead of touching data.
    /// Returns nil for key paths that do not end in a `@Managed` property of `entity`.
    package static func keyName<Root: NSManagedObject, Value>(for keyPath: KeyPath<Root, Value>, entity: NSEntityDescription) -> String? {
        keyName(forAny: keyPath, probe: Root(entity: entity, insertInto: nil))
    }

    static func keyName(forAny keyPath: AnyKeyPath, probe: NSManagedObject) -> String? {
        let recorder = KeyRecorder()
        probe.keyRecorder = recorder
        _ = probe[keyPath: keyPath]
        return recorder.keys.isEmpty ? nil : recorder.keys.joined(separator: ".")
    }
}

extension NSManagedObject: KeyPathNameProviding {
    /// The model key path a Swift key path on a `@Managed` subclass reads, found by probing.
    ///
    /// Used by `#Predicate` translation and `NSSortDescriptor(keyPath:ascending:)`. The class's
    /// entity must be known (a coordinator uses its model); otherwise nil.
    public static func keyValueCodingName(for keyPath: AnyKeyPath) -> String? {
        guard let entity = ClassRegistry.shared.entity(for: self) else { return nil }
        return keyName(forAny: keyPath, probe: self.init(entity: entity, insertInto: nil))
    }
}
