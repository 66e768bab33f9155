import Foundation

// MARK: - Creating a store's schema

extension SQLStoreSchema {
    /// The statements that create a new store, formatted as Apple writes them (formats.md §3).
    ///
    /// Includes `Z_MODELCACHE`; the store inserts its row (`SQLiteModelCache`).
    package func creationStatements(in dialect: any SQLDialect) -> [String] {
        var statements = tableStatements(in: dialect)
        let bookkeeping = SQLBookkeepingStatements(dialect: dialect)
        statements.append(bookkeeping.createPrimaryKeyTable)
        statements.append(bookkeeping.createMetadataTable)
        statements.append(bookkeeping.createModelCacheTable)
        statements += indexStatements(in: dialect)
        statements += derivedAttributeTriggerStatements(in: dialect)
        return statements
    }

    /// The triggers that compute derived attributes in SQL (`SQLiteDerivation`), which Apple
    /// writes after the indexes. Attributes the store cannot derive have none; opening the
    /// store refuses them first (`SQLiteDerivation.all(in:)`).
    package func derivedAttributeTriggerStatements(in dialect: any SQLDialect) -> [String] {
        derivations.flatMap { $0.triggers(in: self, dialect: dialect).map(\.sql) }
    }

    /// The derivations of the derived attributes the store can compute.
    var derivations: [SQLiteDerivation] {
        entities.flatMap { entity in
            entity.ownProperties.compactMap { property -> SQLiteDerivation? in
                guard let derived = property as? NSDerivedAttributeDescription, !derived.isTransient else { return nil }
                return try? SQLiteDerivation(derived, of: entity)
            }
        }
    }

    /// The CREATE TABLE statements of the entity tables (owner columns included) and join tables (no indexes).
    package func tableStatements(in dialect: any SQLDialect) -> [String] {
        var statements: [String] = []
        for table in tables {
            var columns = [SQLCreateTable.Column("Z_PK", .integer, isPrimaryKey: true), .init("Z_ENT", .integer), .init("Z_OPT", .integer)]
                + table.columns.map { SQLCreateTable.Column($0.name, $0.type) }
            // Owner columns of to-many relationships without an inverse go last among the
            // INTEGER columns, with the foreign keys (their position in Apple's tables is unverified).
            let integers = columns.lastIndex { $0.type == .integer }.map { $0 + 1 } ?? columns.endIndex
            columns.insert(contentsOf: ownerColumns(on: table).map { SQLCreateTable.Column($0.name, .integer) }, at: integers)
            statements.append(SQLCreateTable(table.name, columns: columns).sql(in: dialect))
        }
        for join in joinTables {
            var columns = [SQLCreateTable.Column(join.sourceColumn, .integer), .init(join.destinationColumn, .integer)]
            if let order = join.sourceOrderColumn { columns.append(.init(order, .integer)) }
            if let order = join.destinationOrderColumn { columns.append(.init(order, .integer)) }
            statements.append(SQLCreateTable(join.name, columns: columns, primaryKey: [join.sourceColumn, join.destinationColumn]).sql(in: dialect))
        }
        return statements
    }

    /// Foreign-key, `Z_ENT`, join-table, indexed-attribute, uniqueness and fetch indexes.
    package func indexStatements(in dialect: any SQLDialect) -> [String] {
        indexes().map { $0.sql(in: dialect) }
    }

    /// The indexes Apple creates, in its order.
    package func indexes() -> [SQLCreateIndex] {
        var indexes: [SQLCreateIndex] = []
        for table in tables {
            for column in table.columns where column.role == .foreignKey {
                indexes.append(SQLCreateIndex(table.name + "_" + column.name + "_INDEX", on: table.name, [.init(column.name)]))
            }
            for owner in ownerColumns(on: table) {
                indexes.append(owner.index)
            }
            for column in table.columns where column.property.isIndexed {
                if case .attribute = column.role {
                    indexes.append(SQLCreateIndex(table.name + "_" + column.name + "_INDEX", on: table.name, [.init(column.name)]))
                }
            }
            if table.hostsSeveralEntities {
                indexes.append(SQLCreateIndex(table.name + "_Z_ENT_INDEX", on: table.name, [.init("Z_ENT")]))
            }
        }
        for join in joinTables {
            indexes.append(SQLCreateIndex(join.name + "_" + join.destinationColumn + "_INDEX", on: join.name,
                                          [.init(join.destinationColumn), .init(join.sourceColumn)]))
        }
        for entity in entities {
            guard let table = table(for: entity), let entityName = entity.name else { continue }
            for constraint in entity.uniquenessConstraintNames {
                let columns = constraint.compactMap { name in entity.propertiesByName[name].flatMap { table.valueColumn(for: $0) } }
                guard columns.count == constraint.count, !columns.isEmpty else { continue }
                let name = "Z_\(entityName)_UNIQUE_" + constraint.joined(separator: "_")
                indexes.append(SQLCreateIndex(name, on: table.name, columns.map { .init($0.name, collation: .binary, ascending: true) }, unique: true))
            }
            // Apple wrote no index for a fetch index declared on a subentity (formats.md §3.5).
            guard entity.superentity == nil else { continue }
            for index in entity.indexes {
                let elements = index.elements.compactMap { element -> SQLCreateIndex.Element? in
                    guard let property = element.property ?? element.propertyName.flatMap({ entity.propertiesByName[$0] }),
                          let column = table.valueColumn(for: property) else { return nil }
                    return .init(column.name, collation: .binary, ascending: element.isAscending)
                }
                guard elements.count == index.elements.count, !elements.isEmpty else { continue }
                indexes.append(SQLCreateIndex("Z_\(entityName)_\(index.name)", on: table.name, elements))
            }
        }
        return indexes
    }
}
