import Foundation

/// The type of an attribute's value, as Core Data's `NSAttributeType`.
///
/// Raw values match Apple's, so they can be read from model files and stored in metadata.
/// See <https://developer.apple.com/documentation/coredata/nsattributetype>.
public enum NSAttributeType: UInt, Sendable, CaseIterable {
    case undefinedAttributeType = 0
    case integer16AttributeType = 100
    case integer32AttributeType = 200
    case integer64AttributeType = 300
    case decimalAttributeType = 400
    case doubleAttributeType = 500
    case floatAttributeType = 600
    case stringAttributeType = 700
    case booleanAttributeType = 800
    case dateAttributeType = 900
    case binaryDataAttributeType = 1000
    case UUIDAttributeType = 1100
    case URIAttributeType = 1200
    case transformableAttributeType = 1800
    case objectIDAttributeType = 2000
    case compositeAttributeType = 2100

    /// Whether values of this type are numbers (integers, decimals and floating point).
    package var isNumeric: Bool {
        switch self {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType,
             .decimalAttributeType, .doubleAttributeType, .floatAttributeType:
            return true
        default:
            return false
        }
    }

    /// Whether values of this type are integers.
    package var isInteger: Bool {
        self == .integer16AttributeType || self == .integer32AttributeType || self == .integer64AttributeType
    }

    /// The name Xcode's model XML uses for this type (`attributeType="Integer 64"`).
    package var xmlName: String {
        switch self {
        case .undefinedAttributeType: return "Undefined"
        case .integer16AttributeType: return "Integer 16"
        case .integer32AttributeType: return "Integer 32"
        case .integer64AttributeType: return "Integer 64"
        case .decimalAttributeType: return "Decimal"
        case .doubleAttributeType: return "Double"
        case .floatAttributeType: return "Float"
        case .stringAttributeType: return "String"
        case .booleanAttributeType: return "Boolean"
        case .dateAttributeType: return "Date"
        case .binaryDataAttributeType: return "Binary"
        case .UUIDAttributeType: return "UUID"
        case .URIAttributeType: return "URI"
        case .transformableAttributeType: return "Transformable"
        case .objectIDAttributeType: return "ObjectID"
        case .compositeAttributeType: return "Composite"
        }
    }

    /// Parses the name Xcode's model XML uses for a type.
    package init?(xmlName: String) {
        guard let match = NSAttributeType.allCases.first(where: { $0.xmlName == xmlName }) else { return nil }
        self = match
    }
}

/// How deleting an object affects the objects it relates to, as Core Data's `NSDeleteRule`.
///
/// See <https://developer.apple.com/documentation/coredata/nsdeleterule>.
public enum NSDeleteRule: UInt, Sendable, CaseIterable {
    /// Do nothing to the destination; the graph may keep references to the deleted object.
    case noActionDeleteRule = 0
    /// Remove the deleted object from the destination's inverse relationship.
    case nullifyDeleteRule = 1
    /// Delete the destination objects too.
    case cascadeDeleteRule = 2
    /// Refuse the deletion while the relationship has destination objects.
    case denyDeleteRule = 3
}

extension NSAttributeDescription {
    /// The Swift-style attribute type, as Apple's `NSAttributeDescription.AttributeType` (iOS 15).
    public struct AttributeType: RawRepresentable, Hashable, Sendable {
        public let rawValue: NSAttributeType
        public init(rawValue: NSAttributeType) { self.rawValue = rawValue }

        public static let undefined = AttributeType(rawValue: .undefinedAttributeType)
        public static let integer16 = AttributeType(rawValue: .integer16AttributeType)
        public static let integer32 = AttributeType(rawValue: .integer32AttributeType)
        public static let integer64 = AttributeType(rawValue: .integer64AttributeType)
        public static let decimal = AttributeType(rawValue: .decimalAttributeType)
        public static let double = AttributeType(rawValue: .doubleAttributeType)
        public static let float = AttributeType(rawValue: .floatAttributeType)
        public static let string = AttributeType(rawValue: .stringAttributeType)
        public static let boolean = AttributeType(rawValue: .booleanAttributeType)
        public static let date = AttributeType(rawValue: .dateAttributeType)
        public static let binaryData = AttributeType(rawValue: .binaryDataAttributeType)
        public static let uuid = AttributeType(rawValue: .UUIDAttributeType)
        public static let uri = AttributeType(rawValue: .URIAttributeType)
        public static let transformable = AttributeType(rawValue: .transformableAttributeType)
        public static let objectID = AttributeType(rawValue: .objectIDAttributeType)
        public static let composite = AttributeType(rawValue: .compositeAttributeType)
    }
}
