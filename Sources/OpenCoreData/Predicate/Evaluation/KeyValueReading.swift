import Foundation

// MARK: - KeyValueReading

/// An object whose properties predicates and sort descriptors can read by name.
///
/// `NSManagedObject` conforms. `value(forKey:)` returns `NSNumber` (or a Swift number) for
/// numeric attributes, `String`, `Date`, `Data`, `UUID`, `URL`, `Decimal`/`NSDecimalNumber`,
/// another object for a to-one relationship, and an `NSSet`/`NSOrderedSet` (or any Swift
/// collection) of objects for a to-many relationship; `nil` for a missing value.
package protocol KeyValueReading: AnyObject {
    /// The value of the property named `key`, or `nil`.
    func value(forKey key: String) -> Any?

    /// Whether `key` names a to-many relationship, whose values a key path flattens.
    func isToManyRelationship(_ key: String) -> Bool
}

extension KeyValueReading {
    /// No to-many relationships by default.
    package func isToManyRelationship(_ key: String) -> Bool { false }
}

// MARK: - KeyValueAccess

/// Key-value coding for predicates: walks key paths through objects, dictionaries and collections.
package enum KeyValueAccess {
    /// The value at a dot-separated key path; `@count`, `@sum.x`, … apply collection operators.
    package static func value(forKeyPath path: String, of object: Any?) -> Any? {
        // Most key paths are one plain key: read it without splitting (a per-row allocation).
        if !path.utf8.contains(UInt8(ascii: ".")) && path.utf8.first != UInt8(ascii: "@") {
            return value(forKey: path, of: object)
        }
        let components = path.split(separator: ".", omittingEmptySubsequences: false)
        var current = PredicateValue.unwrap(object)
        for (position, component) in components.enumerated() {
            if component.hasPrefix("@") {
                let rest = components[(position + 1)...].joined(separator: ".")
                return CollectionOperator.apply(String(component), rest: rest, to: current)
            }
            current = value(forKey: String(component), of: current)
        }
        return current
    }

    /// The value for one key. Collections map the key over their elements, as `NSArray` does.
    package static func value(forKey key: String, of object: Any?) -> Any? {
        guard let object = PredicateValue.unwrap(object) else { return nil }
        if let reader = object as? any KeyValueReading {
            return PredicateValue.unwrap(reader.value(forKey: key))
        }
        if key == "self" { return object }
        if let dictionary = object as? [String: Any] {
            return PredicateValue.unwrap(dictionary[key])
        }
        if type(of: object) is NSDictionary.Type, let dictionary = object as? NSDictionary {
            return PredicateValue.unwrap(dictionary.object(forKey: key))
        }
        if let dictionary = object as? [AnyHashable: Any] {
            return PredicateValue.unwrap(dictionary[AnyHashable(key)])
        }
        if let elements = PredicateValue.elements(object) {
            return mapKey(key, over: elements)
        }
        if let string = PredicateValue.string(object) {
            return key == "length" ? string.utf16.count : nil
        }
        return reflectedValue(forKey: key, of: object)
    }

    private static func mapKey(_ key: String, over elements: PredicateValue.Elements) -> Any {
        if let flattened = flattenedToMany(key, over: elements) { return flattened }
        if !elements.isUnordered {
            return elements.values.map { value(forKey: key, of: $0) ?? NSNull() }
        }
        // The distinct values, keyed without hashing any value (see `DistinctValueKey`), read
        // from the objects in primary-key order so that their order is the same in every process.
        return DistinctValueSet(distinct: StoreOrder.sorted(elements.values).lazy.map { value(forKey: key, of: $0) as Any })
    }

    /// A to-many relationship read from every object of a collection: one collection of all
    /// their destinations, not a collection of collections. So `pets.tags.label` is the labels
    /// of every tag of every pet, as Apple's stores flatten a path through two to-many
    /// relationships. Unordered elements give a set (each object once); ordered ones an array
    /// of each element's destinations in turn. Nil when an element is not an object with such
    /// a relationship.
    private static func flattenedToMany(_ key: String, over elements: PredicateValue.Elements) -> Any? {
        guard !elements.values.isEmpty else { return nil }
        var objects: [Any] = []
        var seen = Set<ObjectIdentifier>()
        for element in elements.values {
            guard let reader = PredicateValue.unwrap(element) as? any KeyValueReading, reader.isToManyRelationship(key) else { return nil }
            guard let destinations = PredicateValue.elements(PredicateValue.unwrap(reader.value(forKey: key))) else { continue }
            for destination in destinations.values {
                if elements.isUnordered {
                    guard seen.insert(ObjectIdentifier(destination as AnyObject)).inserted else { continue }
                }
                objects.append(destination)
            }
        }
        return elements.isUnordered ? NSSet(array: objects) as Any : objects as Any
    }

    /// Reads a stored property of a plain Swift value by reflection (also through superclasses).
    private static func reflectedValue(forKey key: String, of object: Any) -> Any? {
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            for child in current.children {
                guard let label = child.label else { continue }
                if label == key || label == "_" + key || label == "$__lazy_storage_$_" + key {
                    return PredicateValue.unwrap(child.value)
                }
            }
            mirror = current.superclassMirror
        }
        return nil
    }
}
