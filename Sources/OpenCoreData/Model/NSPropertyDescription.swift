import Foundation

/// A property of an entity: the common part of attributes, relationships and fetched properties.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nspropertydescription>.
/// A description is editable until its model is frozen by a coordinator; after that every setter
/// stops with a message, as Apple raises an exception for "Can't modify an immutable model".
///
/// `@unchecked Sendable`: the invariant is that mutation happens only before the owning model is
/// frozen (one thread builds a model, as with Apple's); once frozen every stored property is read-only.
open class NSPropertyDescription: NSObject, NSCopying, @unchecked Sendable {
    /// The property's name, unique within its entity hierarchy.
    open var name: String = "" { willSet { checkMutable("name") } }
    /// Whether a value may be nil when the object is saved. Defaults to `true`, as Apple's.
    open var isOptional: Bool = true { willSet { checkMutable("isOptional") } }
    /// Whether the property is kept in memory only and never saved.
    open var isTransient: Bool = false { willSet { checkMutable("isTransient") } }
    /// Whether the property is read-only (derived attributes are).
    open var isReadOnly: Bool = false { willSet { checkMutable("isReadOnly") } }
    /// Whether the store should index this property (deprecated by Apple in favour of fetch indexes).
    open var isIndexed: Bool = false { willSet { checkMutable("isIndexed") } }
    /// Whether Spotlight indexes the property (kept for API compatibility; no effect on Linux).
    open var isIndexedBySpotlight: Bool = false
    /// Whether the value is kept in persistent history after deletion (model XML `preserveAfterDeletion`).
    open var preservesValueInHistoryOnDeletion: Bool = false { willSet { checkMutable("preservesValueInHistoryOnDeletion") } }
    /// The user info dictionary from the model editor.
    open var userInfo: [AnyHashable: Any]? = nil
    /// A string mixed into the version hash to force a new version.
    open var versionHashModifier: String? = nil { willSet { checkMutable("versionHashModifier") } }
    /// The identifier used by lightweight migration to recognise a renamed property.
    open var renamingIdentifier: String? = nil
    /// The predicates a value must satisfy; see `setValidationPredicates(_:withValidationWarnings:)`.
    open private(set) var validationPredicates: [NSPredicate] = []
    /// The warnings matching `validationPredicates`, one per predicate.
    open private(set) var validationWarnings: [Any] = []

    /// The entity the property belongs to.
    // unowned, not weak: a weak reference gives the entity a side table, which makes every
    // retain and release of it (each object and object ID holds one) take the slow path.
    // Apple declares it `assign`; the model keeps its entities alive.
    open internal(set) unowned var entity: NSEntityDescription!

    /// Set once the owning model is frozen.
    package var isFrozen = false

    public required override init() { super.init() }

    /// Sets the validation predicates and the warnings reported when each fails.
    ///
    /// Core Data maps the common shapes to its error codes: `SELF >= x` fails with
    /// `NSValidationNumberTooSmallError` (or date too early), `length <= n` with
    /// `NSValidationStringTooLongError`, `SELF MATCHES p` with `NSValidationStringPatternMatchingError`.
    open func setValidationPredicates(_ predicates: [NSPredicate]?, withValidationWarnings warnings: [String]?) {
        checkMutable("validationPredicates")
        validationPredicates = predicates ?? []
        validationWarnings = warnings ?? []
    }

    /// The property's version hash (Apple's algorithm; see `docs/StoreFormat.md`).
    open var versionHash: Data { VersionHasher.hash(of: self) }

    /// Whether this property is stored (neither transient nor a fetched property).
    package var isStored: Bool { !isTransient && !(self is NSFetchedPropertyDescription) }

    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = Self.makeCopy(of: self)
        return copy
    }

    /// Copies the common fields into `copy`; subclasses extend it.
    package func copyFields(into copy: NSPropertyDescription) {
        copy.name = name
        copy.isOptional = isOptional
        copy.isTransient = isTransient
        copy.isReadOnly = isReadOnly
        copy.isIndexed = isIndexed
        copy.isIndexedBySpotlight = isIndexedBySpotlight
        copy.preservesValueInHistoryOnDeletion = preservesValueInHistoryOnDeletion
        copy.userInfo = userInfo
        copy.versionHashModifier = versionHashModifier
        copy.renamingIdentifier = renamingIdentifier
        copy.validationPredicates = validationPredicates
        copy.validationWarnings = validationWarnings
    }

    private static func makeCopy(of property: NSPropertyDescription) -> NSPropertyDescription {
        let copy = type(of: property).init()
        property.copyFields(into: copy)
        return copy
    }

    package func checkMutable(_ key: String) {
        if isFrozen {
            fatalError("Can't modify an immutable model: property '\(name)' key '\(key)' was changed after the model was used by a coordinator.")
        }
    }

    open override var description: String {
        "(\(Swift.type(of: self)) name \(name), isOptional \(isOptional), isTransient \(isTransient), entity \(entity?.name ?? "nil"))"
    }
}
