import Foundation

/// The column types Apple declares in its store schema (formats.md §3.3); each dialect names
/// them (`SQLDialect.typeName(of:length:)`), SQLite by these raw values.
package enum SQLColumnType: String, CaseIterable, Sendable {
    case integer = "INTEGER"
    case float = "FLOAT"
    case timestamp = "TIMESTAMP"
    case decimal = "DECIMAL"
    case varchar = "VARCHAR"
    case blob = "BLOB"

    /// The declared type of an attribute's column.
    package init(attributeType: NSAttributeType) {
        switch attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType:
            self = .integer
        case .doubleAttributeType, .floatAttributeType:
            self = .float
        case .dateAttributeType:
            self = .timestamp
        case .decimalAttributeType:
            self = .decimal
        case .stringAttributeType, .URIAttributeType:
            self = .varchar
        case .binaryDataAttributeType, .UUIDAttributeType, .transformableAttributeType, .undefinedAttributeType,
             .objectIDAttributeType, .compositeAttributeType:
            self = .blob
        }
    }

    /// Apple groups a table's columns by type in this order.
    package var groupRank: Int { Self.allCases.firstIndex(of: self)! }
}
