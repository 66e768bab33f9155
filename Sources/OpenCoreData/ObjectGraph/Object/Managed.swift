/// Makes a property of an `NSManagedObject` subclass a Core Data property,
/// like `@NSManaged` does with Apple's Core Data.
///
/// The property's name is its key in the model. Declare it as a `var` with an
/// explicit type and no initial value (the model supplies defaults):
///
/// ```swift
/// final class Todo: NSManagedObject {
///     @Managed var title: String?
///     @Managed var done: Bool
///     @Managed var tags: Set<Tag>
/// }
/// ```
///
/// The macro turns the property into a computed one whose getter calls
/// `managedValue(forKey:)` and whose setter calls `setManagedValue(_:forKey:)`,
/// so the declared type picks how the value is read and written.
///
/// A property named `primitive<Key>` is the primitive accessor of `<key>`, as Core Data
/// provides for every modeled property: it reads the value and writes it as
/// `setPrimitiveValue(_:forKey:)` does, without change notifications.
///
/// ```swift
/// @Managed private var primitiveUpdatedAt: Date?
/// override func willSave() { primitiveUpdatedAt = Date() }
/// ```
///
/// See [`NSManaged`](https://developer.apple.com/documentation/swift/nsmanaged)
/// for the attribute this replaces.
@attached(accessor)
public macro Managed() = #externalMacro(module: "OpenCoreDataMacros", type: "ManagedMacro")

/// Makes a property of an `NSManagedObject` subclass a Core Data property
/// stored under a different name in the model.
///
/// ```swift
/// final class Account: NSManagedObject {
///     @Managed("balance_cents") var balanceInCents: Int64
/// }
/// ```
///
/// - Parameter key: The model's name for the property, as a string literal.
@attached(accessor)
public macro Managed(_ key: String) = #externalMacro(module: "OpenCoreDataMacros", type: "ManagedMacro")
