import Foundation

// MARK: - Conversion

extension BatchInsertRows {
    /// How one slot's values become store values, chosen once per request from the attribute's
    /// type: a million-row insert otherwise asked every value's attribute for its type (a
    /// class property read with an exclusivity check). Conversions are `AttributeConversion`'s.
    enum Conversion {
        /// A type with a store form: `AttributeConversion.storeValue(_:type:)`.
        case standard(NSAttributeType)
        /// A transformable attribute: encoded with its transformer (`NSNull` is nil).
        case transformable(NSAttributeDescription)
        /// A composite attribute: a dictionary of its elements' values (`CompositeCoding`).
        case composite(NSCompositeAttributeDescription)
        /// Undefined and object-ID attributes, and relationships: nothing converts.
        case unconvertible

        init(_ attribute: NSAttributeDescription) {
            let type = attribute.attributeType
            if type == .transformableAttributeType {
                self = .transformable(attribute)
            } else if let composite = attribute as? NSCompositeAttributeDescription {
                self = .composite(composite)
            } else if AttributeConversion.isCustom(type) {
                self = .unconvertible
            } else {
                self = .standard(type)
            }
        }

        /// The store value of `value`, or nil when it is of the wrong type for the attribute.
        @inline(__always)
        func storeValue(_ value: Any) -> StoreValue? {
            switch self {
            case .standard(let type):
                // `AttributeConversion.storeValue(_:type:)` without wrapping the value in an
                // Optional, which copied and destroyed it once more per value.
                if let converted = AttributeConversion.convertedValue(value, type: type) { return converted }
                return value is NSNull ? .null : nil
            case .transformable(let attribute):
                return value is NSNull ? .null : TransformableCoding.encode(value, attribute: attribute)
            case .composite(let composite):
                return CompositeCoding.storeValue(ofPublic: value, composite: composite)
            case .unconvertible:
                return nil
            }
        }
    }
}
