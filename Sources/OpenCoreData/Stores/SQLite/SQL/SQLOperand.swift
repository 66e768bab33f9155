import Foundation
import GRDB

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

// MARK: - SQLScalar

/// A lowered expression that yields one SQL value per row.
package struct SQLScalar {
    package var sql: SQLFragment
    package var kind: SQLValueKind
    /// Whether the value can be NULL (every attribute column can).
    package var isNullable: Bool
    /// The attribute whose column this is, when it is one (dictionary results decode with its type).
    package var attribute: NSAttributeDescription?

    package init(_ sql: SQLFragment, kind: SQLValueKind, isNullable: Bool = true, attribute: NSAttributeDescription? = nil) {
        self.sql = sql
        self.kind = kind
        self.isNullable = isNullable
        self.attribute = attribute
    }
}

// MARK: - SQLObjectReference

/// A managed object in SQL: the fetched row, a to-one destination or a subquery's element.
package struct SQLObjectReference {
    /// Its `Z_PK`: `t0.Z_PK`, or a foreign-key column such as `t0.ZDEPARTMENT`.
    package var key: SQLFragment
    package var entity: NSEntityDescription
    /// The alias of its row when the row is in the FROM clause; otherwise a join is made on demand.
    package var alias: String?
    /// Identifies the join that brings its row in, so each to-one path is joined once.
    package var joinKey: String
    /// The alias whose scope owns that join.
    package var ownerAlias: String
    package var isNullable: Bool

    package var kind: SQLValueKind { .object(root: ObjectIdentifier(entity.rootEntity)) }
    package var scalar: SQLScalar { SQLScalar(key, kind: kind, isNullable: isNullable) }
}

// MARK: - SQLCollection

/// A to-many key path (`tags`, `tags.name`, `department.employees`) or a `SUBQUERY`: rows of a
/// correlated subquery, each yielding an object or a value.
package struct SQLCollection {
    /// `FROM` text of the correlated subquery, joins included.
    package var from: SQLFragment
    /// Conditions tying the rows to their owner (and the entity filter, and a SUBQUERY's predicate).
    package var conditions: [SQLFragment]
    /// The destination rows.
    package var row: SQLObjectReference
    /// What each element is: the row itself, or a value read from it.
    package var element: Element
    /// The owner's key when the owner may be missing (a to-many behind a nil to-one): then the
    /// collection is nil in memory, so `@count` is nil and `ALL` is false.
    package var nullableOwnerKey: SQLFragment?
    /// ORDER BY terms of an ordered relationship, in its order.
    package var order: [SQLFragment]?
    /// Whether the collection is an array in memory (an ordered relationship, a SUBQUERY's
    /// result), whose key-path values keep nils; a set drops them.
    package var isArray: Bool
    /// The alias of the owner's scope: joins on values picked from the collection go there.
    package var ownerAlias: String

    package enum Element {
        case rows
        /// A value per row. In an unordered relationship, Key-Value Coding drops nil values (it
        /// builds a set); an ordered one keeps them (as `NSNull`).
        case value(SQLScalar, dropsNil: Bool)
    }

    /// The WHERE conditions that select the elements (nil values left out when KVC leaves them out).
    package var elementConditions: [SQLFragment] {
        if case .value(let scalar, dropsNil: true) = element, scalar.isNullable {
            return conditions + [scalar.sql + " IS NOT NULL"]
        }
        return conditions
    }

    /// `SELECT <columns> FROM … WHERE …` over the elements, with extra conditions.
    package func select(_ columns: SQLFragment, where extra: [SQLFragment] = [], ordered: Bool = false) -> SQLFragment {
        var sql = "SELECT " + columns + " FROM " + from
        let all = elementConditions + extra
        if !all.isEmpty {
            sql.append(" WHERE ")
            sql.append(all.count == 1 ? all[0] : all.map { "(" + $0 + ")" }.joined(separator: " AND "))
        }
        if ordered, let order, !order.isEmpty {
            sql.append(" ORDER BY ")
            sql.append(order.joined(separator: ", "))
        }
        return sql
    }

    /// The value each element yields, as a scalar (the row's key for `.rows`).
    package var elementScalar: SQLScalar {
        switch element {
        case .rows: return row.scalar
        case .value(let scalar, _): return scalar
        }
    }
}

// MARK: - SQLOperand

/// One side of a comparison after lowering.
package enum SQLOperand {
    /// A value known at translation time (constants, folded functions, unbound variables).
    case constant(Any?)
    /// One SQL value per row.
    case scalar(SQLScalar)
    /// A managed object.
    case object(SQLObjectReference)
    /// A to-many collection.
    case collection(SQLCollection)
    /// `{a, b, …}` with some non-constant elements.
    case list([SQLOperand])

    /// The operand as a scalar SQL value, when it is one.
    package var scalar: SQLScalar? {
        switch self {
        case .scalar(let scalar): return scalar
        case .object(let object): return object.scalar
        default: return nil
        }
    }
}

// MARK: - SQLConstant

/// Classifies and binds translation-time constants exactly as the store encodes values.
package enum SQLConstant {
    /// What a constant is, in the in-memory evaluator's terms.
    package enum Classification {
        case null
        case value(SQLValueKind, DatabaseValue)
        /// A managed object or object ID.
        case objectID(NSManagedObjectID)
        /// An array, set, ordered set or (for `IN`) dictionary's values.
        case collection([Any?])
        /// Anything else: never equal to a stored value.
        case opaque
    }

    /// The classification of a constant, in the order `ValueComparison` tests types.
    package static func classify(_ raw: Any?) -> Classification {
        guard let value = PredicateValue.unwrap(raw) else { return .null }
        if let number = PredicateNumber(value) {
            switch number {
            case .int(let int): return .value(.number(isInteger: true), int.databaseValue)
            case .uint(let uint): return .value(.number(isInteger: false), Double(uint).databaseValue)
            case .double(let double): return double.isNaN ? .opaque : .value(.number(isInteger: false), double.databaseValue)
            case .decimal(let decimal): return .value(.number(isInteger: false), SQLiteValueCoding.double(from: decimal).databaseValue)
            }
        }
        if let string = PredicateValue.string(value) { return .value(.string, string.databaseValue) }
        if let date = PredicateValue.date(value) {
            return .value(.date, SQLiteValueCoding.databaseValue(.date(date)))
        }
        switch value {
        case let data as Data: return .value(.data, data.databaseValue)
        case let data as NSData: return .value(.data, (data as Data).databaseValue)
        case let uuid as UUID: return .value(.uuid, SQLiteValueCoding.databaseValue(.uuid(uuid)))
        case let uuid as NSUUID: return .value(.uuid, SQLiteValueCoding.databaseValue(.uuid(uuid as UUID)))
        case let url as URL: return .value(.url, SQLiteValueCoding.databaseValue(.uri(url)))
        case let url as NSURL: return .value(.url, SQLiteValueCoding.databaseValue(.uri(url as URL)))
        case let object as NSManagedObject: return .objectID(object.objectID)
        case let id as NSManagedObjectID: return .objectID(id)
        default: break
        }
        if let elements = PredicateValue.elements(value) { return .collection(elements.values.map { PredicateValue.unwrap($0) }) }
        return .opaque
    }

    /// A bound parameter for a value, as `SQLFragment`; an empty BLOB binds as `zeroblob(0)`
    /// because binding zero bytes binds NULL.
    package static func parameter(_ value: DatabaseValue) -> SQLFragment {
        if case .blob(let data) = value.storage, data.isEmpty {
            return "zeroblob(" + SQLFragment.parameter(0.databaseValue) + ")"
        }
        return .parameter(value)
    }
}
