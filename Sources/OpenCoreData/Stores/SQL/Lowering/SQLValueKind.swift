import Foundation

// MARK: - SQLValueKind

/// What kind of value a lowered SQL expression holds, as the in-memory evaluator sees it.
///
/// Two values compare only when their kinds are comparable (`ValueComparison.compare` returns
/// nil otherwise), so the lowering decides statically what SQLite's cross-type comparisons would
/// get wrong: `ZAGE = '34'` is true in SQLite (numeric affinity) and false in memory.
package enum SQLValueKind: Equatable, Sendable {
    /// Integers and booleans (`isInteger`), doubles, floats and decimals.
    case number(isInteger: Bool)
    /// TEXT; compared with Swift's `String` semantics (see `SQLiteFunctions.compareCollation`).
    case string
    /// REAL seconds since 2001-01-01.
    case date
    /// BLOB, compared bytewise.
    case data
    /// A 16-byte BLOB; byte order equals the order of `uuidString`.
    case uuid
    /// TEXT holding `absoluteString`; compared as strings.
    case url
    /// A managed object: its `Z_PK` in the table of the entity hierarchy rooted at `root`.
    case object(root: ObjectIdentifier)

    /// The kind of an attribute's column, or nil for values SQL cannot compare like memory does.
    package init?(attributeType: NSAttributeType) {
        switch attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType:
            self = .number(isInteger: true)
        case .doubleAttributeType, .floatAttributeType, .decimalAttributeType:
            self = .number(isInteger: false)
        case .stringAttributeType: self = .string
        case .dateAttributeType: self = .date
        case .binaryDataAttributeType: self = .data
        case .UUIDAttributeType: self = .uuid
        case .URIAttributeType: self = .url
        case .transformableAttributeType, .undefinedAttributeType, .objectIDAttributeType, .compositeAttributeType:
            return nil
        }
    }

    /// Whether values of the two kinds can be equal or ordered (numbers with numbers, and so on).
    package func isComparable(with other: SQLValueKind) -> Bool {
        switch (self, other) {
        case (.number, .number), (.string, .string), (.date, .date), (.data, .data), (.uuid, .uuid), (.url, .url),
             (.object, .object):
            return true
        default:
            return false
        }
    }

    /// Whether SQLite must compare the values with the `OCD_COMPARE` collation (Swift string order).
    package var isText: Bool { self == .string || self == .url }

    package var isInteger: Bool { self == .number(isInteger: true) }
}
