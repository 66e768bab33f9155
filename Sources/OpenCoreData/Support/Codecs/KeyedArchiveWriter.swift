import Foundation

/// Builds an `NSKeyedArchiver` archive without the Objective-C runtime: the inverse of
/// ``KeyedArchive``.
///
/// The result is a binary property list `{ $archiver: NSKeyedArchiver, $version: 100000,
/// $top: { root: UID }, $objects: [...] }` with `$null` at index 0. Objects are dictionaries
/// whose `$class` refers to a `{ $classname, $classes }` entry, shared by every object of the
/// class. An object that stands for a Swift instance (an entity, a property) is archived once:
/// ``object(for:classes:fields:)`` reserves its index before encoding its fields, so back
/// references (property → entity → property) refer to the same UID and the encoding ends;
/// ``reference(identity:)`` hands out an object's UID before it is encoded.
/// Strings and numbers referenced as objects are shared by value, as Apple's archiver does.
package final class KeyedArchiveWriter {
    private var objects: [PropertyListValue] = [.string("$null")]
    private var classIndices: [[String]: Int] = [:]
    private var primitiveIndices: [PropertyListValue: Int] = [:]
    private var instanceIndices: [AnyHashable: Int] = [:]
    /// Reserved indices whose object has been (or is being) encoded.
    private var encodedIndices = Set<Int>()
    /// Keeps every archived instance alive, so no `ObjectIdentifier` is reused while archiving.
    private var instances: [AnyObject] = []

    /// The reference to `$null`, for a nil object.
    package static let null = PropertyListValue.uid(0)

    /// Creates an empty archive.
    package init() {}

    // MARK: - Objects

    /// A reference to a primitive object (string, number, data) in `$objects`, shared by value.
    package func primitive(_ value: PropertyListValue) -> PropertyListValue {
        if let index = primitiveIndices[value] { return .uid(index) }
        objects.append(value)
        primitiveIndices[value] = objects.count - 1
        return .uid(objects.count - 1)
    }

    /// A reference to a string object, or `$null` for nil.
    package func string(_ value: String?) -> PropertyListValue {
        guard let value else { return Self.null }
        return primitive(.string(value))
    }

    /// A reference to the archived form of `instance`, encoding it the first time it is seen.
    ///
    /// - Parameters:
    ///   - classes: The class and its superclasses, most specific first (`$classes`).
    ///   - fields: Encodes the object's keys; it may archive other objects, including this one.
    package func object(for instance: AnyObject, classes: [String],
                        fields: (KeyedArchiveWriter) -> [(String, PropertyListValue)]) -> PropertyListValue {
        retain(instance)
        return object(identity: ObjectIdentifier(instance), classes: classes, fields: fields)
    }

    /// A reference to the object archived under `identity`, encoding it unless it already was.
    ///
    /// The index is reserved before `fields` runs, so an object that refers back to itself
    /// (through others) gets its own UID and the encoding ends.
    package func object(identity: AnyHashable, classes: [String],
                        fields: (KeyedArchiveWriter) -> [(String, PropertyListValue)]) -> PropertyListValue {
        let index: Int
        if let known = instanceIndices[identity] {
            guard !encodedIndices.contains(known) else { return .uid(known) }
            index = known
        } else {
            index = reserve()
            instanceIndices[identity] = index
        }
        encodedIndices.insert(index)
        let encoded = dictionary(classes: classes, fields: fields(self))
        objects[index] = encoded
        return .uid(index)
    }

    /// The UID of the object archived under `identity`, reserved now if it is not yet known; the
    /// caller encodes it later with ``object(identity:classes:fields:)``. Referring to objects
    /// this way, instead of encoding them where they are first mentioned, keeps the recursion
    /// shallow however long the chains of references are.
    package func reference(identity: AnyHashable) -> PropertyListValue {
        if let known = instanceIndices[identity] { return .uid(known) }
        let index = reserve()
        instanceIndices[identity] = index
        return .uid(index)
    }

    /// ``reference(identity:)`` for an instance.
    package func reference(for instance: AnyObject) -> PropertyListValue {
        retain(instance)
        return reference(identity: ObjectIdentifier(instance))
    }

    private func retain(_ instance: AnyObject) {
        if instanceIndices[ObjectIdentifier(instance)] == nil { instances.append(instance) }
    }

    /// A reference to a new object of `classes` with `fields`, never shared.
    package func object(classes: [String], fields: [(String, PropertyListValue)]) -> PropertyListValue {
        let index = reserve()
        let encoded = dictionary(classes: classes, fields: fields)
        objects[index] = encoded
        return .uid(index)
    }

    /// An `NSArray` (or the collection class given, with its chain) of object references.
    package func array(_ elements: [PropertyListValue], classes: [String] = ["NSArray", "NSObject"]) -> PropertyListValue {
        object(classes: classes, fields: [("NS.objects", .array(elements))])
    }

    /// An `NSDictionary` (or the class given) of object references, in the given order.
    package func dictionary(keys: [PropertyListValue], values: [PropertyListValue],
                            classes: [String] = ["NSDictionary", "NSObject"]) -> PropertyListValue {
        object(classes: classes, fields: [("NS.keys", .array(keys)), ("NS.objects", .array(values))])
    }

    /// The archive: a binary property list whose `$top.root` is `root`.
    package func finish(root: PropertyListValue) -> Data {
        BinaryPropertyListWriter.data(.dictionary(
            keys: ["$version", "$archiver", "$top", "$objects"],
            values: [.integer(100_000), .string("NSKeyedArchiver"),
                     .dictionary(keys: ["root"], values: [root]), .array(objects)]))
    }

    // MARK: - Internals

    private func reserve() -> Int {
        WorkCounter.count()
        objects.append(.string("$null"))
        return objects.count - 1
    }

    private func dictionary(classes: [String], fields: [(String, PropertyListValue)]) -> PropertyListValue {
        .dictionary(keys: ["$class"] + fields.map(\.0), values: [classReference(classes)] + fields.map(\.1))
    }

    private func classReference(_ classes: [String]) -> PropertyListValue {
        if let index = classIndices[classes] { return .uid(index) }
        objects.append(.dictionary(keys: ["$classname", "$classes"],
                                   values: [.string(classes.first ?? "NSObject"), .array(classes.map(PropertyListValue.string))]))
        classIndices[classes] = objects.count - 1
        return .uid(objects.count - 1)
    }
}
