import Foundation

/// Turns transformable attribute values into bytes for the store and back.
///
/// With `valueTransformerName` set, the named `ValueTransformer` does the work: a custom
/// transformer's `transformedValue` gives the stored `Data` and `reverseTransformedValue` reads
/// it back; an unarchiving transformer (`NSSecureUnarchiveFromDataTransformer` and its
/// subclasses) runs the other way round, as Core Data runs it. Without one, values that are
/// already `Data` are stored as they are and other values go through `NSKeyedArchiver`.
/// Composite attributes, the other custom type kept as the object set, go to `CompositeCoding`.
package enum TransformableCoding {
    package static func encode(_ value: Any?, attribute: NSAttributeDescription?) -> StoreValue {
        guard let value, !(value is NSNull) else { return .null }
        if let composite = attribute as? NSCompositeAttributeDescription {
            return CompositeCoding.storeValue(ofPublic: value, composite: composite) ?? .null
        }
        if let transformer = transformer(of: attribute) {
            let stored = transformer is NSSecureUnarchiveFromDataTransformer
                ? transformer.reverseTransformedValue(value)
                : transformer.transformedValue(value)
            if let data = stored as? Data { return .data(data) }
            return .null
        }
        if let data = value as? Data { return .data(data) }
        if let archived = try? NSKeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: false) {
            return .data(archived)
        }
        return .null
    }

    package static func decode(_ data: Data, attribute: NSAttributeDescription?) -> Any? {
        if let composite = attribute as? NSCompositeAttributeDescription {
            return CompositeCoding.publicValue(.data(data), composite: composite)
        }
        if let transformer = transformer(of: attribute) {
            return transformer is NSSecureUnarchiveFromDataTransformer
                ? transformer.transformedValue(data)
                : transformer.reverseTransformedValue(data)
        }
        // Archives whose classes this process lacks, or that the bounds-checked reader rejects,
        // stay `Data` (see KeyedArchiveCheck).
        if KeyedArchiveCheck.isReadable(data),
           let object = try? NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(data) {
            return object
        }
        return data
    }

    private static func transformer(of attribute: NSAttributeDescription?) -> ValueTransformer? {
        guard let name = attribute?.valueTransformerName, !name.isEmpty else { return nil }
        return ValueTransformer.registered(forName: NSValueTransformerName(rawValue: name))
    }
}
