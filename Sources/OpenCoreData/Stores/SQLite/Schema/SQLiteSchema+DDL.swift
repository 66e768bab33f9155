import Foundation

// MARK: - Creating a store's schema

extension SQLiteSchema {
    /// The statements that create a new store, formatted as Apple writes them (formats.md §3).
    ///
    /// `Z_MODELCACHE` is not created: Apple's own fw-241 stores have none (see StoreFormat.md).
    package func creationStatements() -> [String] {
        var statements: [String] = []
        for table in tables {
            var columns = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"]
            columns += table.columns.map { "\(q($0.name)) \($0.type.rawValue)" }
            statements.append("CREATE TABLE \(q(table.name)) ( \(columns.joined(separator: ", ")) )")
        }
        for join in joinTables {
            var columns = ["\(q(join.sourceColumn)) INTEGER", "\(q(join.destinationColumn)) INTEGER"]
            if let order = join.sourceOrderColumn { columns.append("\(q(order)) INTEGER") }
            if let order = join.destinationOrderColumn { columns.append("\(q(order)) INTEGER") }
            columns.append("PRIMARY KEY (\(q(join.sourceColumn)), \(q(join.destinationColumn)))")
            statements.append("CREATE TABLE \(q(join.name)) ( \(columns.joined(separator: ", ")) )")
        }
        statements.append("CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
        statements.append("CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
        statements += indexStatements()
        return statements
    }

    /// Foreign-key, `Z_ENT`, join-table, indexed-attribute, uniqueness and fetch indexes.
    package func indexStatements() -> [String] {
        var statements: [String] = []
        for table in tables {
            for column in table.columns where column.role == .foreignKey {
                statements.append("CREATE INDEX \(q(table.name + "_" + column.name + "_INDEX")) ON \(q(table.name)) (\(q(column.name)))")
            }
            for column in table.columns where column.property.isIndexed {
                if case .attribute = column.role {
                    statements.append("CREATE INDEX \(q(table.name + "_" + column.name + "_INDEX")) ON \(q(table.name)) (\(q(column.name)))")
                }
            }
            if table.hostsSeveralEntities {
                statements.append("CREATE INDEX \(q(table.name + "_Z_ENT_INDEX")) ON \(q(table.name)) (Z_ENT)")
            }
        }
        for join in joinTables {
            statements.append("CREATE INDEX \(q(join.name + "_" + join.destinationColumn + "_INDEX")) ON \(q(join.name)) (\(q(join.destinationColumn)), \(q(join.sourceColumn)))")
        }
        for entity in entities {
            guard let table = table(for: entity), let entityName = entity.name else { continue }
            for constraint in entity.uniquenessConstraintNames {
                let columns = constraint.compactMap { name in entity.propertiesByName[name].flatMap { table.valueColumn(for: $0) } }
                guard columns.count == constraint.count, !columns.isEmpty else { continue }
                let name = "Z_\(entityName)_UNIQUE_" + constraint.joined(separator: "_")
                let list = columns.map { "\(q($0.name)) COLLATE BINARY ASC" }.joined(separator: ", ")
                statements.append("CREATE UNIQUE INDEX \(q(name)) ON \(q(table.name)) (\(list))")
            }
            // Apple wrote no index for a fetch index declared on a subentity (formats.md §3.5).
            guard entity.superentity == nil else { continue }
            for index in entity.indexes {
                let columns = index.elements.compactMap { element -> String? in
                    guard let property = element.property ?? element.propertyName.flatMap({ entity.propertiesByName[$0] }),
                          let column = table.valueColumn(for: property) else { return nil }
                    return "\(q(column.name)) COLLATE BINARY \(element.isAscending ? "ASC" : "DESC")"
                }
                guard columns.count == index.elements.count, !columns.isEmpty else { continue }
                statements.append("CREATE INDEX \(q("Z_\(entityName)_\(index.name)")) ON \(q(table.name)) (\(columns.joined(separator: ", ")))")
            }
        }
        return statements
    }

    private func q(_ name: String) -> String { SQLIdentifier.quote(name) }
}
