import Foundation

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
