import Foundation

/// An attribute of an entity: a typed value stored in a column.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsattributedescription>.
open class NSAttributeDescription: NSPropertyDescription, @unchecked Sendable {
    /// The type of the attribute's value.
    open var attributeType: NSAttributeType = .undefinedAttributeType {
        willSet { checkMutable("attributeType") }
    }

    /// The Swift-style type (`.string`, `.integer64`, …).
    open var type: AttributeType {
        get { AttributeType(rawValue: attributeType) }
        set { attributeType = newValue.rawValue }
    }

    /// The name of the class used for values (`NSString`, `NSNumber`, …), or the custom class of a transformable.
    open var attributeValueClassName: String? {
        get { _attributeValueClassName ?? Self.defaultValueClassName(for: attributeType) }
        set { _attributeValueClassName = newValue }
    }
    private var _attributeValueClassName: String?

    /// The value a new object gets, or nil.
    open var defaultValue: Any? = nil { willSet { checkMutable("defaultValue") } }

    /// The name of the `ValueTransformer` of a transformable attribute; nil means the default keyed-archive transformer.
    open var valueTransformerName: String? = nil { willSet { checkMutable("valueTransformerName") } }

    /// Whether large binary values may be kept outside the store file.
    open var allowsExternalBinaryDataStorage: Bool = false {
        willSet { checkMutable("allowsExternalBinaryDataStorage") }
    }

    /// Whether CloudKit encrypts the value (no effect on Linux).
    open var allowsCloudEncryption: Bool = false

    /// Whether the model editor marked the attribute as using a Swift scalar (`usesScalarValueType`).
    open var usesScalarValueType: Bool = false

    open override func copyFields(into copy: NSPropertyDescription) {
        super.copyFields(into: copy)
        guard let copy = copy as? NSAttributeDescription else { return }
        copy.attributeType = attributeType
        copy._attributeValueClassName = _attributeValueClassName
        copy.defaultValue = defaultValue
        copy.valueTransformerName = valueTransformerName
        copy.allowsExternalBinaryDataStorage = allowsExternalBinaryDataStorage
        copy.allowsCloudEncryption = allowsCloudEncryption
        copy.usesScalarValueType = usesScalarValueType
    }

    static func defaultValueClassName(for type: NSAttributeType) -> String? {
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType,
             .doubleAttributeType, .floatAttributeType, .booleanAttributeType:
            return "NSNumber"
        case .decimalAttributeType: return "NSDecimalNumber"
        case .stringAttributeType: return "NSString"
        case .dateAttributeType: return "NSDate"
        case .binaryDataAttributeType: return "NSData"
        case .UUIDAttributeType: return "NSUUID"
        case .URIAttributeType: return "NSURL"
        case .objectIDAttributeType: return "NSManagedObjectID"
        case .compositeAttributeType: return "NSDictionary"
        case .undefinedAttributeType, .transformableAttributeType: return nil
        }
    }

    open override var description: String {
        "(\(Swift.type(of: self)) name \(name), type \(attributeType.xmlName), isOptional \(isOptional), isTransient \(isTransient), entity \(entity?.name ?? "nil"), defaultValue \(defaultValue.map { "\($0)" } ?? "nil"))"
    }
}

/// An attribute whose value Core Data derives from other values when the object is saved.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsderivedattributedescription>.
open class NSDerivedAttributeDescription: NSAttributeDescription, @unchecked Sendable {
    /// The expression that computes the value.
    open var derivationExpression: NSExpression? = nil { willSet { checkMutable("derivationExpression") } }

    public required init() {
        super.init()
        // Core Data computes the value; code does not set it (Apple archives these read-only).
        isReadOnly = true
    }

    open override func copyFields(into copy: NSPropertyDescription) {
        super.copyFields(into: copy)
        (copy as? NSDerivedAttributeDescription)?.derivationExpression = derivationExpression
    }
}
