import Foundation

// MARK: - Conversion

extension BatchInsertRows {
    /// How one slot's values become store values, chosen once per request from the attribute's
    /// type: a million-row insert otherwise asks every value which type its attribute has.
    ///
    /// Conversions are `AttributeConversion`'s; the exact Swift types an app most often passes
    /// (`String`, `Int`, `UUID`, …) are recognized by their metatype first, which is cheaper
    /// than a dynamic cast that may fail and look for a bridge.
    enum Conversion {
        /// A type with a store form: `AttributeConversion.storeValue(_:type:)`.
        case standard(NSAttributeType)
        /// A transformable attribute: encoded with its transformer (`NSNull` is nil).
        case transformable(NSAttributeDescription)
        /// Undefined, composite and object-ID attributes, and relationships: nothing converts.
        case none

        init(_ attribute: NSAttributeDescription) {
            let type = attribute.attributeType
            if type == .transformableAttributeType {
                self = .transformable(attribute)
            } else if AttributeConversion.isCustom(type) {
                self = .none
            } else {
                self = .standard(type)
            }
        }

        /// The store value of `value`, or nil when it is of the wrong type for the attribute.
        @inline(__always)
        func storeValue(_ value: Any) -> StoreValue? {
            switch self {
            case .standard(let type):
                return AttributeConversion.storeValue(value, type: type)
            case .transformable(let attribute):
                return value is NSNull ? .null : TransformableCoding.encode(value, attribute: attribute)
            case .none:
                return nil
            }
        }
    }
}
