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
        if data.starts(with: Array("bplist00".utf8)),
           let object = try? NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(data) {
            return object
        }
        return data
    }
}
