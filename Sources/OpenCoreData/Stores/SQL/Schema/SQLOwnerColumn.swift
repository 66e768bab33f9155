import Foundation

/// The column of a to-many relationship without an inverse, in Apple's layout: on the
/// destination's table, `Z<Z_ENT of the source><REL>` INTEGER, holding the owner's `Z_PK`.
///
/// Read from a store SwiftData wrote (wave3-research §5): `Cocktail.spec: [Ingredient]`, no
/// inverse, `Cocktail` entity 1 → `ZINGREDIENT.Z1SPEC` with
/// `CREATE INDEX ZINGREDIENT_Z1SPEC_INDEX ON ZINGREDIENT (Z1SPEC)`, and no join table. It works
/// like the foreign key of a hidden to-one inverse: a destination row has at most one owner.
///
/// The table is the destination's root table (subentities share it); the number is the
/// `Z_ENT` of the entity that declares the relationship, as for join-table columns.
///
/// `@unchecked Sendable`: built once from a frozen model, never mutated afterwards.
package final class SQLOwnerColumn: @unchecked Sendable {
    /// The to-many relationship whose owners' keys the column holds.
    package let relationship: NSRelationshipDescription
    /// The destination's table, where the column is.
    package let table: SQLTable
    /// `Z<n><REL>` (with a numeric suffix if the table already has a column of that name).
    package let name: String
    /// The join table an earlier OpenCoreData kept the relationship in (`Z_<n><REL>`).
    package let legacyJoinTableName: String

    init(relationship: NSRelationshipDescription, table: SQLTable, name: String, legacyJoinTableName: String) {
        self.relationship = relationship
        self.table = table
        self.name = name
        self.legacyJoinTableName = legacyJoinTableName
    }

    /// `CREATE INDEX <TABLE>_<COLUMN>_INDEX ON <TABLE> (<COLUMN>)`, as for a foreign key.
    package var index: SQLCreateIndex {
        SQLCreateIndex(table.name + "_" + name + "_INDEX", on: table.name, [.init(name)])
    }

    /// The column as a foreign-key column of its table (not one of `table.columns`: no property
    /// of the destination's entities has it as its value).
    package var column: SQLColumn {
        SQLColumn(name: name, type: .integer, role: .foreignKey, property: relationship)
    }

    /// Whether a to-many relationship is stored in Apple's owner column when the store has no
    /// join table of it from an earlier OpenCoreData (`SQLStoreSchema`).
    ///
    /// Ordered ones are not: no store Apple wrote with one has been seen, so they keep the join
    /// table with its `Z_FOK_` column (docs/StoreFormat.md).
    static func applies(to relationship: NSRelationshipDescription) -> Bool {
        relationship.isToMany && !relationship.isTransient && relationship.inverseRelationship == nil && !relationship.isOrdered
    }

    /// `Z<n><REL>`, suffixed 1, 2, … until no name in `used` equals it.
    static func name(for relationship: NSRelationshipDescription, sourceNumber: Int, used: Set<String>) -> String {
        let base = "Z\(sourceNumber)" + relationship.name.uppercased()
        var name = base
        var suffix = 1
        while used.contains(name) {
            name = base + String(suffix)
            suffix += 1
        }
        return name
    }
}
