import Foundation
import GRDB

// MARK: - SQLiteLightweightMigration

/// An inferred migration of a SQLite store, in place, by SQL alone ("in situ", as Apple's
/// lightweight migration of SQLite stores is), run inside the caller's write transaction so a
/// failure or a killed process leaves the store as it was.
///
/// The entity tables and join tables of the source model are renamed aside, the destination
/// model's tables are created, each destination entity's rows are copied from its source
/// entity's (keeping `Z_PK` and `Z_OPT`, renumbering `Z_ENT`, copying, converting or defaulting
/// each column), join tables are copied, the old tables dropped, the indexes created, and
/// `Z_PRIMARYKEY`, `Z_METADATA` and `Z_MODELCACHE` rewritten. Tables the model does not
/// describe (Apple's persistent history) are left alone.
struct SQLiteLightweightMigration {
    let match: ModelMatch
    let source: SQLStoreSchema
    let destination: SQLStoreSchema
    let dialect: any SQLDialect

    /// Prefix of the source tables while they are copied.
    static let asidePrefix = "_OCD_MIGRATING_"

    /// - Parameters:
    ///   - storedNumbers: the store's `Z_PRIMARYKEY` names and numbers.
    ///   - storedTables: the store's table names (a to-many without an inverse may be in an
    ///     earlier OpenCoreData's join table; the destination always uses Apple's owner column).
    /// - Throws: `NSMigrationError` for changes this migration does not perform yet.
    init(match: ModelMatch, storedNumbers: [String: Int], storedTables: Set<String> = [], dialect: any SQLDialect) throws {
        self.match = match
        self.dialect = dialect
        source = SQLStoreSchema(model: match.sourceModel, storedNumbers: storedNumbers, storedTables: storedTables)
        destination = SQLStoreSchema(model: match.destinationModel)
        try checkSupported()
    }

    // MARK: - Checks

    /// A relationship whose storage changes (a foreign key, the inverse's foreign key or a join
    /// table: to-one ↔ to-many, one-to-many ↔ many-to-many) is migrated from its old pairs;
    /// one whose old pairs cannot be found is refused before anything is written, rather than
    /// dropping its members.
    private func checkSupported() throws {
        for entity in match.entities {
            for relationship in entity.relationships {
                guard let previous = relationship.source else { continue }
                let new = relationship.destination
                let needsPairs = !new.isToMany || destination.joinTable(for: new)?.owner === new || destination.ownerColumn(for: new) != nil
                if needsPairs && pairSource(of: previous) == nil {
                    throw CoreDataError.make(NSMigrationError,
                                             "Migrating the relationship '\(new.name)' of entity '\(entity.destination.name ?? "?")' from \(Self.shape(previous)) to \(Self.shape(new)) is not supported: its members are stored nowhere the migration can read. The store was not changed.",
                                             userInfo: ["entity": entity.destination.name ?? "", "property": new.name])
                }
            }
        }
    }

    /// Where a source relationship's (owner, target) pairs are stored.
    enum PairSource {
        /// A join table, read through the relationship's side of it.
        case join(SQLJoinTable, SQLJoinTable.Access)
        /// The owner's foreign-key column (a to-one).
        case ownerKey(SQLTable, SQLColumn)
        /// The target's column holding the owner's key: the inverse to-one's foreign key (a
        /// one-to-many's to-many side), or the owner column of a to-many without an inverse.
        case inverseKey(SQLTable, SQLColumn)
    }

    func pairSource(of previous: NSRelationshipDescription) -> PairSource? {
        if let join = source.joinTable(for: previous) { return .join(join, join.access(for: previous)) }
        if !previous.isToMany, let owner = previous.entity, let table = source.table(for: owner),
           let column = table.valueColumn(for: previous) {
            return .ownerKey(table, column)
        }
        if let key = source.keyColumn(of: previous) {
            return .inverseKey(key.table, key.column)
        }
        return nil
    }

    private static func shape(_ relationship: NSRelationshipDescription) -> String {
        if !relationship.isToMany { return "to-one" }
        let inverseToMany = relationship.inverseRelationship?.isToMany ?? true
        return (relationship.isOrdered ? "ordered " : "") + (inverseToMany ? "many-to-many" : "one-to-many")
    }

    // MARK: - Running

    /// Migrates the store's tables; returns the destination's entity numbers and metadata, and
    /// the external-data files no row refers to any more (to remove once the migration has
    /// committed: values of removed attributes and entities). Markers stay in the rows; values of
    /// attributes that no longer allow external storage are put back into their rows.
    ///
    /// With `defersCleanup` the old tables are kept under `SQLiteDeferredCleanup.tablePrefix`
    /// names and listed in the metadata, to drop later; clean-up an earlier deferred migration
    /// left is done first either way.
    func run(_ db: Database, metadata: [String: Any], externalData: SQLiteExternalData? = nil, defersCleanup: Bool = false) throws
        -> (entityNumbers: [String: Int], metadata: [String: Any], obsoleteFiles: Set<URL>) {
        _ = try SQLiteDeferredCleanup.drop(SQLiteDeferredCleanup.pendingTables(in: metadata), limit: nil, dialect: dialect, db)
        let sourceTables = try (source.tables.map(\.name) + source.joinTables.map(\.name)).filter { try db.tableExists($0) }
        let previousKeys = try primaryKeyRows(db)
        try dropIndexesAndTriggers(on: sourceTables, db)
        for table in sourceTables {
            try execute(db, SQLSchemaChange.renameTable(table, to: Self.asidePrefix + table).sql(in: dialect))
        }
        for statement in destination.tableStatements(in: dialect) {
            try execute(db, statement)
        }
        let present = Set(sourceTables)
        for entity in match.entities {
            try copyRows(of: entity, present: present, db)
        }
        for join in destination.joinTables {
            try copyJoinRows(join, present: present, db)
        }
        for owner in destination.ownerColumns {
            try fillOwnerColumn(owner, present: present, db)
        }
        try fillNewInverses(present: present, db)
        try fillEntityTypes(db)
        var obsoleteFiles = Set<URL>()
        if let externalData {
            let before = try externalFilesReferenced(bySourceTables: present, externalData: externalData, db)
            if !before.isEmpty {
                obsoleteFiles = before.subtracting(try settleExternalData(externalData, db))
            }
        }
        var deferred: [String] = []
        for table in sourceTables {
            if defersCleanup {
                deferred.append(SQLiteDeferredCleanup.tablePrefix + table)
                try execute(db, SQLSchemaChange.renameTable(Self.asidePrefix + table, to: SQLiteDeferredCleanup.tablePrefix + table).sql(in: dialect))
            } else {
                try execute(db, SQLSchemaChange.dropTable(Self.asidePrefix + table).sql(in: dialect))
            }
        }
        for statement in destination.indexStatements(in: dialect) {
            try execute(db, statement)
        }
        try createDerivedAttributeTriggers(db)
        let numbers = try rewritePrimaryKeys(previousKeys, db)
        var updated = SQLiteDeferredCleanup.metadata(metadata, pending: deferred)
        for (key, value) in SQLiteMetadata.initial(for: match.destinationModel) { updated[key] = value }
        try SQLiteStore.writeMetadata(updated, in: db)
        // Apple rewrites the store's own model with the destination model.
        try SQLiteModelCache.write(match.destinationModel, in: db)
        return (numbers, updated, obsoleteFiles)
    }

    private func execute(_ db: Database, _ sql: String, _ arguments: StatementArguments = []) throws {
        try SQLiteStore.execute(db, sql, arguments)
    }

    private func execute(_ db: Database, _ fragment: SQLFragment) throws {
        try SQLiteStore.execute(db, fragment.sql(in: dialect), fragment.statementArguments)
    }

    /// Drops the indexes and triggers of the source tables (the destination's are created anew;
    /// their names would otherwise collide, and triggers name the old tables).
    private func dropIndexesAndTriggers(on tables: [String], _ db: Database) throws {
        guard !tables.isEmpty else { return }
        var select = SQLSelect(from: dialect.identifier("sqlite_master"))
        select.columns = [dialect.identifier("type"), dialect.identifier("name")]
        select.conditions = [dialect.identifier("tbl_name") + " IN " + dialect.parameterList(tables.map { .text($0) }),
                             dialect.identifier("sql") + " IS NOT NULL",
                             dialect.identifier("type") + " IN " + dialect.parameterList([.text("index"), .text("trigger")])]
        let query = select.render(in: dialect)
        let objects = try Row.fetchAll(db, sql: query.sql(in: dialect), arguments: query.statementArguments)
        for object in objects {
            let type: String = object["type"] ?? "", name: String = object["name"] ?? ""
            let change: SQLSchemaChange = type == "trigger" ? .dropTrigger(name) : .dropIndex(name)
            try execute(db, change.sql(in: dialect))
        }
    }

    /// Creates the destination's derived-attribute triggers once the rows are copied (so the
    /// copy fires none), then computes every derived value from the migrated rows: a derived
    /// attribute new in this version is filled, one whose expression changed is recomputed.
    private func createDerivedAttributeTriggers(_ db: Database) throws {
        let derivations = destination.derivations
        for derivation in derivations {
            for trigger in derivation.triggers(in: destination, dialect: dialect) {
                try execute(db, trigger.sql)
            }
        }
        for derivation in derivations {
            if let fill = derivation.fillStatement(in: destination, dialect: dialect) { try execute(db, fill) }
        }
    }

    // MARK: - Entity rows

    /// `INSERT INTO new SELECT … FROM old WHERE Z_ENT = source` for one destination entity.
    private func copyRows(of entity: ModelMatch.EntityMatch, present: Set<String>, _ db: Database) throws {
        guard let origin = entity.source, let oldTable = source.table(for: origin), present.contains(oldTable.name),
              let newTable = destination.table(for: entity.destination) else { return }
        let alias = "t"
        var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
        var values: [SQLFragment] = [dialect.column("Z_PK", of: alias),
                                     dialect.parameter(.integer(Int64(destination.entityNumber(of: entity.destination)))),
                                     dialect.column("Z_OPT", of: alias)]
        for column in newTable.columns where entity.destination.isKindOf(entity: column.property.entity) {
            guard let value = try value(of: column, entity: entity, oldTable: oldTable, alias: alias) else { continue }
            columns.append(column.name)
            values.append(value)
        }
        var select = SQLSelect(from: dialect.identifier(Self.asidePrefix + oldTable.name) + " " + dialect.identifier(alias))
        select.columns = values
        select.conditions = [dialect.column("Z_ENT", of: alias) + " = " + dialect.parameter(.integer(Int64(source.entityNumber(of: origin))))]
        try execute(db, SQLInsertSelect(into: newTable.name, columns: columns, select: select).render(in: dialect))
    }

    /// The value a destination column gets from a source row, or nil to leave it NULL.
    private func value(of column: SQLColumn, entity: ModelMatch.EntityMatch, oldTable: SQLTable, alias: String) throws -> SQLFragment? {
        switch column.role {
        case .attribute(let type):
            guard let match = entity.attributes.first(where: { $0.destination.name == column.property.name }) else { return nil }
            let fallback = AttributeConversion.storeValue(defaultOf: match.destination)
            let defaultValue: SQLValue? = fallback == .null ? nil : SQLValueCoding.value(fallback)
            guard let previous = match.source, let oldColumn = oldTable.valueColumn(for: previous) else {
                return defaultValue.map { dialect.parameter($0) }
            }
            var value = converted(dialect.column(oldColumn.name, of: alias), from: previous.attributeType, to: type)
            if let defaultValue, !match.destination.isOptional {
                value = "COALESCE(" + value + ", " + dialect.parameter(defaultValue) + ")"
            }
            return value
        case .compositeElement(let type, let leaf):
            // An element keeps its column's values when the source composite has an element at
            // the same path; an added element starts NULL, a removed one is dropped with its column.
            guard let composite = column.property as? NSCompositeAttributeDescription, leaf < composite.leaves.count,
                  let match = entity.attributes.first(where: { $0.destination.name == column.property.name }),
                  let previous = match.source as? NSCompositeAttributeDescription else { return nil }
            let path = composite.leaves[leaf].path
            guard let oldLeaf = previous.leaves.first(where: { $0.path == path }),
                  let oldColumn = oldTable.elementColumn(for: previous, path: path) else { return nil }
            return converted(dialect.column(oldColumn.name, of: alias), from: oldLeaf.attribute.attributeType, to: type)
        case .foreignKey:
            guard let previous = previousRelationship(column, entity) else { return nil }
            if let oldColumn = oldTable.valueColumn(for: previous) { return dialect.column(oldColumn.name, of: alias) }
            // A to-many that becomes a to-one keeps one member: the one with the lowest key.
            return firstTarget(of: previous, ownerAlias: alias)
        case .entityType:
            // A converted to-one's target types are filled once every row is in (fillEntityTypes).
            guard let previous = previousRelationship(column, entity), let key = oldTable.valueColumn(for: previous),
                  let target = (column.property as? NSRelationshipDescription)?.destinationEntity else { return nil }
            return entityNumber(of: target, previous: previous, oldTable: oldTable, key: key, alias: alias)
        case .orderKey:
            guard let previous = previousRelationship(column, entity) else { return nil }
            guard oldTable.valueColumn(for: previous) != nil else { return dialect.column("Z_PK", of: alias) }
            // An unordered to-many that becomes ordered keeps its members in primary-key order.
            guard let index = oldTable.orderColumnByProperty[ObjectIdentifier(previous)] else { return dialect.column("Z_PK", of: alias) }
            return dialect.column(oldTable.columns[index].name, of: alias)
        }
    }

    /// The source relationship of a to-one's foreign-key, entity-type or order column.
    private func previousRelationship(_ column: SQLColumn, _ entity: ModelMatch.EntityMatch) -> NSRelationshipDescription? {
        entity.relationships.first { $0.destination.name == column.property.name }?.source
    }

    /// The lowest-keyed target of a to-many source relationship, for the owner row `ownerAlias`.
    private func firstTarget(of previous: NSRelationshipDescription, ownerAlias: String) -> SQLFragment? {
        let owner = dialect.column("Z_PK", of: ownerAlias)
        switch pairSource(of: previous) {
        case .join(let join, let access):
            let other = dialect.column(access.otherColumn, of: "j")
            return "(SELECT " + other + " FROM " + dialect.identifier(Self.asidePrefix + join.name) + " " + dialect.identifier("j")
                + " WHERE " + dialect.column(access.selfColumn, of: "j") + " = " + owner + " ORDER BY " + other + " LIMIT 1)"
        case .inverseKey(let table, let column):
            let key = dialect.column("Z_PK", of: "p")
            return "(SELECT " + key + " FROM " + dialect.identifier(Self.asidePrefix + table.name) + " " + dialect.identifier("p")
                + " WHERE " + dialect.column(column.name, of: "p") + " = " + owner + " ORDER BY " + key + " LIMIT 1)"
        case .ownerKey(_, let column):
            return dialect.column(column.name, of: ownerAlias)
        case nil:
            return nil
        }
    }

    /// Gives converted to-ones (formerly to-many) the `Z_ENT` of their targets, read from the
    /// migrated target rows.
    private func fillEntityTypes(_ db: Database) throws {
        for entity in match.entities {
            for relationship in entity.relationships where relationship.source?.isToMany == true && !relationship.destination.isToMany {
                let new = relationship.destination
                guard let table = destination.table(for: entity.destination), let key = table.valueColumn(for: new),
                      let typeIndex = table.entityTypeColumnByProperty[ObjectIdentifier(new)],
                      let target = new.destinationEntity, let targetTable = destination.table(for: target) else { continue }
                let sql = "UPDATE " + dialect.identifier(table.name) + " SET " + dialect.identifier(table.columns[typeIndex].name)
                    + " = (SELECT x." + dialect.identifier("Z_ENT") + " FROM " + dialect.identifier(targetTable.name) + " x WHERE x."
                    + dialect.identifier("Z_PK") + " = " + dialect.identifier(table.name) + "." + dialect.identifier(key.name) + ") WHERE "
                    + dialect.identifier(key.name) + " IS NOT NULL"
                try execute(db, sql)
            }
        }
    }

    /// A number value as another kind of number: integers truncate, booleans are 0 or 1.
    private func converted(_ value: SQLFragment, from old: NSAttributeType, to new: NSAttributeType) -> SQLFragment {
        guard old != new else { return value }
        switch new {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            return "CAST(" + value + " AS INTEGER)"
        case .booleanAttributeType:
            return "(CASE WHEN " + value + " IS NULL THEN NULL WHEN " + value + " <> 0 THEN 1 ELSE 0 END)"
        case .doubleAttributeType, .floatAttributeType, .decimalAttributeType:
            return dialect.castToReal(value)
        default:
            return value
        }
    }

    /// The destination's `Z_ENT` of a to-one's target: renumbered from the old entity-type column,
    /// or the one number of the old target when it had no subentities.
    private func entityNumber(of target: NSEntityDescription, previous: NSRelationshipDescription, oldTable: SQLTable,
                              key: SQLColumn, alias: String) -> SQLFragment {
        let renumbered = { (old: NSEntityDescription) -> Int64? in
            self.match.entities.first { $0.source === old }.map { Int64(self.destination.entityNumber(of: $0.destination)) }
        }
        guard let typeIndex = oldTable.entityTypeColumnByProperty[ObjectIdentifier(previous)] else {
            let number = previous.destinationEntity.flatMap(renumbered) ?? Int64(destination.entityNumber(of: target))
            return "(CASE WHEN " + dialect.column(key.name, of: alias) + " IS NULL THEN NULL ELSE " + dialect.parameter(.integer(number)) + " END)"
        }
        var cases = "(CASE " + dialect.column(oldTable.columns[typeIndex].name, of: alias)
        for old in previous.destinationEntity?.selfAndDescendants ?? [] {
            guard let number = renumbered(old) else { continue }
            cases = cases + " WHEN " + dialect.parameter(.integer(Int64(source.entityNumber(of: old)))) + " THEN " + dialect.parameter(.integer(number))
        }
        return cases + " END)"
    }

    // MARK: - Join tables

    /// Copies a many-to-many relationship's pairs from the source join table.
    private func copyJoinRows(_ join: SQLJoinTable, present: Set<String>, _ db: Database) throws {
        guard let owner = join.owner.entity, let entity = match.entities.first(where: { $0.destination === owner }),
              let previous = entity.relationships.first(where: { $0.destination.name == join.owner.name })?.source else { return }
        guard let old = source.joinTable(for: previous) else {
            try copyKeyedPairs(of: previous, into: join, present: present, db)
            return
        }
        guard present.contains(old.name) else { return }
        let access = old.access(for: previous)
        let alias = "j"
        var columns = [join.sourceColumn, join.destinationColumn]
        var values = [dialect.column(access.selfColumn, of: alias), dialect.column(access.otherColumn, of: alias)]
        if let order = join.destinationOrderColumn {
            columns.append(order)
            values.append(access.orderColumn.map { dialect.column($0, of: alias) } ?? dialect.column(access.otherColumn, of: alias))
        }
        if let order = join.sourceOrderColumn, let inverse = previous.inverseRelationship {
            let inverseAccess = old.access(for: inverse)
            columns.append(order)
            values.append(inverseAccess.orderColumn.map { dialect.column($0, of: alias) } ?? dialect.column(inverseAccess.otherColumn, of: alias))
        }
        var select = SQLSelect(from: dialect.identifier(Self.asidePrefix + old.name) + " " + dialect.identifier(alias))
        select.columns = values
        try execute(db, SQLInsertSelect(into: join.name, columns: columns, select: select).render(in: dialect))
    }

    /// Fills a join table from a relationship that was stored in a foreign key (a one-to-many
    /// becoming many-to-many): one pair per non-NULL key; ordered sides keep key order.
    private func copyKeyedPairs(of previous: NSRelationshipDescription, into join: SQLJoinTable, present: Set<String>, _ db: Database) throws {
        let alias = "p"
        let ownerKey: SQLFragment, targetKey: SQLFragment, table: SQLTable, keyColumn: SQLColumn
        switch pairSource(of: previous) {
        case .ownerKey(let oldTable, let column):
            (table, keyColumn) = (oldTable, column)
            (ownerKey, targetKey) = (dialect.column("Z_PK", of: alias), dialect.column(column.name, of: alias))
        case .inverseKey(let oldTable, let column):
            (table, keyColumn) = (oldTable, column)
            (ownerKey, targetKey) = (dialect.column(column.name, of: alias), dialect.column("Z_PK", of: alias))
        case .join, nil:
            return
        }
        guard present.contains(table.name) else { return }
        var columns = [join.sourceColumn, join.destinationColumn]
        var values = [ownerKey, targetKey]
        if let order = join.destinationOrderColumn { columns.append(order); values.append(targetKey) }
        if let order = join.sourceOrderColumn { columns.append(order); values.append(ownerKey) }
        var select = SQLSelect(from: dialect.identifier(Self.asidePrefix + table.name) + " " + dialect.identifier(alias))
        select.columns = values
        select.conditions = [dialect.column(keyColumn.name, of: alias) + " IS NOT NULL"]
        try execute(db, SQLInsertSelect(into: join.name, columns: columns, select: select).render(in: dialect))
    }

    // MARK: - Z_PRIMARYKEY

    private struct PrimaryKeyRow {
        let number: Int
        let name: String
        let max: Int64
    }

    private func primaryKeyRows(_ db: Database) throws -> [PrimaryKeyRow] {
        try Row.fetchAll(db, sql: SQLiteStore.bookkeeping.selectEntities).map { row in
            PrimaryKeyRow(number: row["Z_ENT"] ?? 0, name: row["Z_NAME"] ?? "", max: row["Z_MAX"] ?? 0)
        }
    }

    /// Writes one row per destination entity: its number, name, parent, and the largest key its
    /// hierarchy used, so keys of deleted rows are never given out again. Rows of tables the
    /// model does not describe (persistent history's 16001–16003) stay: without them the next
    /// history row would be given a key already used.
    private func rewritePrimaryKeys(_ previous: [PrimaryKeyRow], _ db: Database) throws -> [String: Int] {
        let maxByNumber = Dictionary(previous.map { ($0.number, $0.max) }, uniquingKeysWith: max)
        let modelNumbers = Set(source.entities.map(source.entityNumber(of:)) + destination.entities.map(destination.entityNumber(of:)))
        let deleteEntity = SQLDelete(from: "Z_PRIMARYKEY", where: ["Z_ENT"]).sql(in: dialect)
        for number in Set(previous.map(\.number)).intersection(modelNumbers).sorted() {
            try execute(db, deleteEntity, [number])
        }
        var numbers: [String: Int] = [:]
        for entity in match.destinationModel.orderedEntities() {
            let number = destination.entityNumber(of: entity)
            var maximum: Int64 = 0
            if let origin = match.entities.first(where: { $0.destination === entity })?.source {
                maximum = maxByNumber[source.entityNumber(of: origin)] ?? 0
            }
            if entity.superentity == nil, let table = destination.table(for: entity) {
                var select = SQLSelect(from: dialect.identifier(table.name))
                select.columns = ["MAX(" + dialect.identifier("Z_PK") + ")"]
                let query = select.render(in: dialect)
                let used = try Int64.fetchOne(db, sql: query.sql(in: dialect), arguments: query.statementArguments) ?? 0
                for member in entity.selfAndDescendants {
                    guard let origin = match.entities.first(where: { $0.destination === member })?.source else { continue }
                    maximum = max(maximum, maxByNumber[source.entityNumber(of: origin.rootEntity)] ?? 0)
                }
                maximum = max(maximum, used)
            }
            let parent = entity.superentity.map { destination.entityNumber(of: $0) } ?? 0
            try execute(db, SQLiteStore.bookkeeping.insertEntity, [number, entity.name ?? "", parent, maximum])
            numbers[entity.name ?? ""] = number
        }
        return numbers
    }
}

// MARK: - Owner columns

extension SQLiteLightweightMigration {
    /// Fills the owner column of a to-many without an inverse (Apple's `Z<n><REL>`) from the
    /// relationship's old pairs: its old owner column, an inverse's foreign key, a join table
    /// (an earlier OpenCoreData's layout, or a many-to-many losing its inverse), or a to-one.
    ///
    /// A destination with two owners in the old pairs cannot be kept (the column holds one):
    /// the migration fails with `NSMigrationError` naming the relationship rather than dropping
    /// a member; the store is then unchanged.
    fileprivate func fillOwnerColumn(_ owner: SQLOwnerColumn, present: Set<String>, _ db: Database) throws {
        let new = owner.relationship
        guard let ownerEntity = new.entity, let previous = previousRelationship(named: new.name, of: ownerEntity) else { return }
        try fillKeys(owner.table, column: owner.name, from: previous, for: new, present: present, db)
    }

    /// Fills the foreign key of a to-one that is new in the destination model and the inverse of
    /// a to-many the source model had without an inverse (an inverse added to it), from that
    /// to-many's old pairs, and its entity-type column; otherwise its members would be dropped.
    fileprivate func fillNewInverses(present: Set<String>, _ db: Database) throws {
        for entity in match.entities {
            for relationship in entity.relationships where relationship.source == nil && !relationship.destination.isToMany {
                let new = relationship.destination
                guard let toMany = new.inverseRelationship, toMany.isToMany, let ownerEntity = toMany.entity,
                      let previous = previousRelationship(named: toMany.name, of: ownerEntity), previous.inverseRelationship == nil,
                      let table = destination.table(for: entity.destination), let key = table.valueColumn(for: new),
                      new.entity === entity.destination else { continue }
                try fillKeys(table, column: key.name, from: previous, for: toMany, present: present, db)
                if let typeIndex = table.entityTypeColumnByProperty[ObjectIdentifier(new)], let target = new.destinationEntity,
                   let targetTable = destination.table(for: target) {
                    let sql = "UPDATE " + dialect.identifier(table.name) + " SET " + dialect.identifier(table.columns[typeIndex].name)
                        + " = (SELECT x." + dialect.identifier("Z_ENT") + " FROM " + dialect.identifier(targetTable.name) + " x WHERE x."
                        + dialect.identifier("Z_PK") + " = " + dialect.identifier(table.name) + "." + dialect.identifier(key.name) + ") WHERE "
                        + dialect.identifier(key.name) + " IS NOT NULL"
                    try SQLiteStore.execute(db, sql.sql(in: dialect), sql.statementArguments)
                }
            }
        }
    }

    /// The source relationship of a destination entity's relationship, by the destination's name.
    private func previousRelationship(named name: String, of entity: NSEntityDescription) -> NSRelationshipDescription? {
        match.entities.first { $0.destination === entity }?.relationships.first { $0.destination.name == name }?.source
    }

    /// Sets `column` of the target rows in `table` to their owner's key, read from the old pairs
    /// of `previous` (the source of the to-many `new`); refuses an element with two owners.
    private func fillKeys(_ table: SQLTable, column: String, from previous: NSRelationshipDescription, for new: NSRelationshipDescription,
                          present: Set<String>, _ db: Database) throws {
        guard let pairs = pairsSelect(of: previous, present: present) else { return }
        let ownerKey = dialect.identifier("o"), targetKey = dialect.identifier("t")
        let check = "SELECT " + targetKey + " FROM (" + pairs + ") " + dialect.identifier("p") + " GROUP BY " + targetKey
            + " HAVING COUNT(DISTINCT " + ownerKey + ") > 1 LIMIT 1"
        if let target = try Int64.fetchOne(db, sql: check.sql(in: dialect), arguments: check.statementArguments) {
            let ownerName = new.entity?.name ?? "?"
            throw CoreDataError.make(NSMigrationError,
                                     "Migrating the to-many relationship '\(new.name)' of entity '\(ownerName)' to one owner per destination (\(table.name).\(column)) would drop members: \(new.destinationEntity?.name ?? "?") \(target) is in the relationship of more than one object. The store was not changed.",
                                     userInfo: ["entity": ownerName, "property": new.name])
        }
        let name = dialect.identifier(table.name), key = dialect.identifier("Z_PK")
        let sql = "UPDATE " + name + " SET " + dialect.identifier(column) + " = (SELECT " + ownerKey + " FROM (" + pairs + ") "
            + dialect.identifier("p") + " WHERE " + targetKey + " = " + name + "." + key + ") WHERE " + key + " IN (SELECT " + targetKey
            + " FROM (" + pairs + ") " + dialect.identifier("q") + ")"
        try SQLiteStore.execute(db, sql.sql(in: dialect), sql.statementArguments)
    }

    /// `SELECT <owner key> AS o, <target key> AS t FROM <old table>` over a relationship's old
    /// pairs (read from the tables set aside), or nil when they are stored nowhere or gone.
    private func pairsSelect(of previous: NSRelationshipDescription, present: Set<String>) -> SQLFragment? {
        let alias = "x"
        let owner: SQLFragment, target: SQLFragment, tableName: String, notNull: SQLFragment?
        switch pairSource(of: previous) {
        case .join(let join, let access):
            (owner, target, tableName, notNull) = (dialect.column(access.selfColumn, of: alias), dialect.column(access.otherColumn, of: alias), join.name, nil)
        case .inverseKey(let table, let column):
            let key = dialect.column(column.name, of: alias)
            (owner, target, tableName, notNull) = (key, dialect.column("Z_PK", of: alias), table.name, key)
        case .ownerKey(let table, let column):
            let key = dialect.column(column.name, of: alias)
            (owner, target, tableName, notNull) = (dialect.column("Z_PK", of: alias), key, table.name, key)
        case nil:
            return nil
        }
        guard present.contains(tableName) else { return nil }
        var select = SQLSelect(from: dialect.identifier(Self.asidePrefix + tableName) + " " + dialect.identifier(alias))
        select.columns = [owner + " AS " + dialect.identifier("o"), target + " AS " + dialect.identifier("t")]
        if let notNull { select.conditions = [notNull + " IS NOT NULL"] }
        return select.render(in: dialect)
    }
}
