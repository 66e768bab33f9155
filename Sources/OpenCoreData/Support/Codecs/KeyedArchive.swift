import Foundation

/// A reader for `NSKeyedArchiver` archives built on property lists alone: no Objective-C runtime,
/// no class lookups, no `NSKeyedUnarchiver` (binary plists through ``PropertyListReader``).
///
/// An archive is a property list `{ $archiver, $version, $top: { root: UID }, $objects: [...] }`.
/// Objects are dictionaries whose `$class` points to `{ $classname, $classes }`; references between
/// objects are UIDs (indices into `$objects`), with index 0 being `$null`. This type resolves
/// one reference at a time, so cycles (an entity points to its model, which points back) cost
/// nothing; callers that walk trees bound their own depth.
///
/// Every access is checked: a missing key, a UID out of range or a value of the wrong type
/// throws `NSFileReadCorruptFileError` naming the file and the object's class and key.
package struct KeyedArchive {
    /// The `$objects` array.
    let objects: [Any]
    /// The index of the root object.
    let rootIndex: Int
    /// The file being read, for error messages.
    let location: ModelFileLocation

    /// Parses an archive from property-list data (binary or XML).
    package init(data: Data, location: ModelFileLocation) throws {
        self.location = location
        let plist: Any
        do {
            plist = try PropertyListReader.propertyList(from: data)
        } catch let error as PropertyListError {
            throw ModelFileError.corrupt(location, "not a property list (\(error.reason))", underlying: error)
        } catch {
            throw ModelFileError.corrupt(location, "not a property list (\((error as NSError).localizedDescription))", underlying: error)
        }
        guard let top = plist as? [String: Any] else {
            throw ModelFileError.corrupt(location, "the property list is not a keyed archive (its top level is not a dictionary)")
        }
        guard let objects = top["$objects"] as? [Any], let roots = top["$top"] as? [String: Any] else {
            throw ModelFileError.corrupt(location, "the property list is not a keyed archive (no $objects or $top)")
        }
        guard let rootReference = roots["root"] ?? roots.values.first, let rootIndex = Self.uid(rootReference),
              objects.indices.contains(rootIndex)
        else {
            throw ModelFileError.corrupt(location, "the keyed archive has no valid root object")
        }
        self.objects = objects
        self.rootIndex = rootIndex
    }

    /// The root object.
    package func root() throws -> ArchivedObject {
        guard case .object(let object) = try resolve(index: rootIndex, context: "$top.root") else {
            throw ModelFileError.corrupt(location, "the keyed archive's root is not an object")
        }
        return object
    }

    // MARK: - Resolving values

    /// Resolves a raw property-list value found in an object's fields or a collection.
    func resolve(_ raw: Any, context: String) throws -> ArchiveValue {
        if let index = Self.uid(raw) { return try resolve(index: index, context: context) }
        return try inlineValue(raw, context: context)
    }

    /// Resolves the object at an index of `$objects`.
    func resolve(index: Int, context: String) throws -> ArchiveValue {
        guard objects.indices.contains(index) else {
            throw ModelFileError.corrupt(location, "\(context) refers to object #\(index), but the archive has \(objects.count) objects")
        }
        let raw = objects[index]
        if let string = raw as? String, string == "$null" { return .null }
        if let fields = raw as? [String: Any], let classReference = fields["$class"] {
            let (name, chain) = try className(classReference, context: context)
            return .object(ArchivedObject(archive: self, index: index, className: name, classChain: chain, fields: fields))
        }
        return try inlineValue(raw, context: context)
    }

    private func inlineValue(_ raw: Any, context: String) throws -> ArchiveValue {
        switch raw {
        case let bool as Bool: return .bool(bool)
        case let string as String: return .string(string)
        case let number as NSNumber: return .number(number)
        case let data as Data: return .data(data)
        case let date as Date: return .date(date)
        case let array as [Any]: return .array(array)
        default:
            throw ModelFileError.corrupt(location, "\(context) has an unexpected value of type \(type(of: raw))")
        }
    }

    private func className(_ reference: Any, context: String) throws -> (String, [String]) {
        guard let index = Self.uid(reference), objects.indices.contains(index),
              let info = objects[index] as? [String: Any], let name = info["$classname"] as? String
        else {
            throw ModelFileError.corrupt(location, "\(context) has an invalid $class reference")
        }
        let chain = (info["$classes"] as? [Any])?.compactMap { $0 as? String } ?? [name]
        return (name, chain)
    }

    // MARK: - UIDs

    /// The index a UID refers to, or nil when the value is not a UID.
    ///
    /// Binary archives give ``KeyedArchiveUID``s. For XML archives `PropertyListSerialization`
    /// hands UIDs back as an opaque Foundation class; its value is read through reflection
    /// (Linux), its description (Darwin), or the `{CF$UID: n}` dictionary form.
    static func uid(_ raw: Any) -> Int? {
        if let uid = raw as? KeyedArchiveUID { return uid.index }
        if let dictionary = raw as? [String: Any], dictionary.count == 1, let value = dictionary["CF$UID"] {
            return (value as? NSNumber).flatMap { Int(exactly: $0.int64Value) }
        }
        guard String(describing: type(of: raw)).contains("KeyedArchiverUID") else { return nil }
        for child in Mirror(reflecting: raw).children where child.label == "value" {
            if let value = child.value as? any BinaryInteger { return Int(exactly: value) }
        }
        let text = String(describing: raw)
        if let range = text.range(of: "value = ") {
            return Int(text[range.upperBound...].prefix(while: \.isNumber))
        }
        return nil
    }
}

// MARK: - Values

/// A resolved archive value: a primitive, an inline array, or an object.
package enum ArchiveValue {
    case null
    case bool(Bool)
    case number(NSNumber)
    case string(String)
    case data(Data)
    case date(Date)
    case array([Any])
    case object(ArchivedObject)

    /// The value as a string, unwrapping an archived `NSString`.
    var stringValue: String? {
        switch self {
        case .string(let string): return string
        case .object(let object) where object.isKind(of: "NSString"):
            return object.fields["NS.string"] as? String
        default: return nil
        }
    }
}

/// An object in a keyed archive: its class and its encoded fields.
package struct ArchivedObject {
    let archive: KeyedArchive
    /// The object's index in `$objects`; identical objects have identical indices.
    package let index: Int
    /// The archived class name (`NSEntityDescription`, `NSMutableDictionary`, …).
    package let className: String
    /// The class and its superclasses, as archived in `$classes`.
    package let classChain: [String]
    /// The raw encoded fields.
    let fields: [String: Any]

    /// Whether the object's class is `name` or inherits from it.
    package func isKind(of name: String) -> Bool {
        className == name || classChain.contains(name)
    }

    /// Whether a key is encoded.
    package func has(_ key: String) -> Bool { fields[key] != nil }

    /// The resolved value of a key; `.null` when absent.
    package func value(_ key: String) throws -> ArchiveValue {
        guard let raw = fields[key] else { return .null }
        return try archive.resolve(raw, context: "\(className).\(key)")
    }

    /// A string value; nil when absent or `$null`.
    package func string(_ key: String) throws -> String? {
        let value = try value(key)
        if case .null = value { return nil }
        guard let string = value.stringValue else { throw typeError(key, "a string") }
        return string
    }

    /// An integer value; nil when absent.
    package func integer(_ key: String) throws -> Int? {
        switch try value(key) {
        case .null: return nil
        case .number(let number): return Int(exactly: number.int64Value)
        case .bool(let bool): return bool ? 1 : 0
        default: throw typeError(key, "an integer")
        }
    }

    /// A boolean value; nil when absent.
    package func bool(_ key: String) throws -> Bool? {
        switch try value(key) {
        case .null: return nil
        case .bool(let bool): return bool
        case .number(let number): return number.int64Value != 0
        default: throw typeError(key, "a boolean")
        }
    }

    /// An object value; nil when absent or `$null`.
    package func object(_ key: String) throws -> ArchivedObject? {
        switch try value(key) {
        case .null: return nil
        case .object(let object): return object
        default: throw typeError(key, "an object")
        }
    }

    /// The elements of an archived array, set or ordered set (`NS.objects`); empty when absent.
    package func elements(_ key: String) throws -> [ArchiveValue] {
        switch try value(key) {
        case .null: return []
        case .array(let raw): return try raw.map { try archive.resolve($0, context: "\(className).\(key)") }
        case .object(let collection): return try collection.collectionElements()
        default: throw typeError(key, "a collection")
        }
    }

    /// The entries of an archived dictionary (`NSDictionary`, `NSKnownKeysDictionary1`) in
    /// archive order; empty when absent.
    package func entries(_ key: String) throws -> [(key: ArchiveValue, value: ArchiveValue)] {
        switch try value(key) {
        case .null: return []
        case .object(let dictionary): return try dictionary.dictionaryEntries()
        default: throw typeError(key, "a dictionary")
        }
    }

    /// This object's elements when it is an array or set.
    package func collectionElements() throws -> [ArchiveValue] {
        guard let raw = fields["NS.objects"] as? [Any] else {
            if fields["NS.objects"] == nil, !isKind(of: "NSArray"), !isKind(of: "NSSet"), !isKind(of: "NSOrderedSet") {
                throw ModelFileError.corrupt(archive.location, "expected a collection, found \(className)")
            }
            return []
        }
        return try raw.map { try archive.resolve($0, context: "\(className).NS.objects") }
    }

    /// This object's entries when it is a dictionary.
    package func dictionaryEntries() throws -> [(key: ArchiveValue, value: ArchiveValue)] {
        if let searchMapping = try object("searchMapping") {
            let keys = try searchMapping.elements("keys")
            let values = try elements("values")
            guard keys.count == values.count else {
                throw ModelFileError.corrupt(archive.location, "\(className) has \(keys.count) keys but \(values.count) values")
            }
            return Array(zip(keys, values)).map { (key: $0.0, value: $0.1) }
        }
        let rawKeys = fields["NS.keys"] as? [Any] ?? []
        let rawValues = fields["NS.objects"] as? [Any] ?? []
        guard rawKeys.count == rawValues.count else {
            throw ModelFileError.corrupt(archive.location, "\(className) has \(rawKeys.count) keys but \(rawValues.count) values")
        }
        guard fields["NS.keys"] != nil || isKind(of: "NSDictionary") else {
            throw ModelFileError.corrupt(archive.location, "expected a dictionary, found \(className)")
        }
        var entries: [(key: ArchiveValue, value: ArchiveValue)] = []
        entries.reserveCapacity(rawKeys.count)
        for (key, value) in zip(rawKeys, rawValues) {
            entries.append((key: try archive.resolve(key, context: "\(className).NS.keys"),
                            value: try archive.resolve(value, context: "\(className).NS.objects")))
        }
        return entries
    }

    /// The error for a key whose value has the wrong type.
    package func typeError(_ key: String, _ expected: String) -> NSError {
        ModelFileError.corrupt(archive.location, "\(className).\(key) is not \(expected)")
    }
}
