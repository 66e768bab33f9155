import Foundation

/// Turns transformable attribute values into bytes for the store and back.
///
/// With `valueTransformerName` set, the named `ValueTransformer` does the work
/// (`transformedValue` gives the stored `Data`). Without one, values that are already `Data`
/// are stored as they are and other values go through `NSKeyedArchiver`, like Apple's default
/// `NSSecureUnarchiveFromData` transformer.
package enum TransformableCoding {
    package static func encode(_ value: Any?, attribute: NSAttributeDescription?) -> StoreValue {
        guard let value, !(value is NSNull) else { return .null }
        if let name = attribute?.valueTransformerName, !name.isEmpty,
           let transformer = ValueTransformer.registered(forName: NSValueTransformerName(rawValue: name)) {
            if let data = transformer.transformedValue(value) as? Data { return .data(data) }
            return .null
        }
        if let data = value as? Data { return .data(data) }
        if let archived = try? NSKeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: false) {
            return .data(archived)
        }
        return .null
    }

    package static func decode(_ data: Data, attribute: NSAttributeDescription?) -> Any? {
        if let name = attribute?.valueTransformerName, !name.isEmpty,
           let transformer = ValueTransformer.registered(forName: NSValueTransformerName(rawValue: name)) {
            return transformer.reverseTransformedValue(data)
        }
        if data.starts(with: Array("bplist00".utf8)), archivedClassesAreAvailable(data),
           let object = try? NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(data) {
            return object
        }
        return data
    }

    /// Whether `data` is a keyed archive, readable by OpenCoreData's bounds-checked reader, whose
    /// classes all exist in this process. Stores read on Linux usually hold the app's own
    /// `NSCoding` types: Foundation's unarchiver would log a line for each such value, and it can
    /// trap on corrupt property lists (store files come from outside). Those values stay `Data`.
    private static func archivedClassesAreAvailable(_ data: Data) -> Bool {
        guard let archive = try? PropertyListReader.propertyList(from: data) as? [String: Any],
              let objects = archive["$objects"] as? [Any] else { return false }
        for case let object as [String: Any] in objects {
            if let name = object["$classname"] as? String, NSClassFromString(name) == nil { return false }
        }
        return true
    }
}
