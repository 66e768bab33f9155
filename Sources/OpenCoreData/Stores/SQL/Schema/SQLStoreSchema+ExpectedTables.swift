import Foundation

// MARK: - The tables and columns a model maps to

extension SQLStoreSchema {
    /// A table the store must have for the model to read and write it.
    package struct ExpectedTable {
        /// The table's name as the schema writes it (`ZPOST`, `Z_1TAGS`).
        package let name: String
        /// The entity whose rows the table holds; for a join table, the owner relationship's entity.
        package let entity: NSEntityDescription
        /// The relationship a join table stores; nil for an entity table.
        package let relationship: NSRelationshipDescription?
        package let columns: [ExpectedColumn]
    }

    /// A column the store must have, and the property it serves.
    package struct ExpectedColumn {
        package let name: String
        /// The entity that declares `property` (for bookkeeping columns, the table's entity).
        package let entity: NSEntityDescription
        /// The property whose value the column holds; nil for `Z_PK`, `Z_ENT` and `Z_OPT`.
        package let property: NSPropertyDescription?
    }

    /// Every table and column this schema reads and writes: the entity tables with their
    /// bookkeeping, property and owner columns (`tables`, `ownerColumns`), and the join tables
    /// (`joinTables`).
    ///
    /// Derived from the same `SQLTable`/`SQLJoinTable` values the DDL, the query builder and the
    /// row decoder use, so the store's open check (`SQLiteSchemaCheck`) expects exactly what
    /// reads will select.
    ///
    /// - Complexity: O(tables + columns).
    package var expectedTables: [ExpectedTable] {
        var expected: [ExpectedTable] = []
        expected.reserveCapacity(tables.count + joinTables.count)
        for table in tables {
            var columns = ["Z_PK", "Z_ENT", "Z_OPT"].map { ExpectedColumn(name: $0, entity: table.root, property: nil) }
            for column in table.columns {
                columns.append(ExpectedColumn(name: column.name, entity: column.property.entity ?? table.root, property: column.property))
            }
            // The owner columns of to-many relationships without an inverse (Apple's layout),
            // named after the relationship that declares them.
            for owner in ownerColumns(on: table) {
                columns.append(ExpectedColumn(name: owner.name, entity: owner.relationship.entity ?? table.root, property: owner.relationship))
            }
            expected.append(ExpectedTable(name: table.name, entity: table.root, relationship: nil, columns: columns))
        }
        for join in joinTables {
            let owner = join.owner
            guard let entity = owner.entity else { continue }
            var columns = [ExpectedColumn(name: join.sourceColumn, entity: entity, property: owner),
                           ExpectedColumn(name: join.destinationColumn, entity: entity, property: owner)]
            if let order = join.sourceOrderColumn, let inverse = join.inverse, let inverseEntity = inverse.entity {
                columns.append(ExpectedColumn(name: order, entity: inverseEntity, property: inverse))
            }
            if let order = join.destinationOrderColumn { columns.append(ExpectedColumn(name: order, entity: entity, property: owner)) }
            expected.append(ExpectedTable(name: join.name, entity: entity, relationship: owner, columns: columns))
        }
        return expected
    }
}
