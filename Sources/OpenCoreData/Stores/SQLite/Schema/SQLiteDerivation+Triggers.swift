import Foundation

// MARK: - Triggers

extension SQLiteDerivation {
    /// A `CREATE TRIGGER` statement and the trigger's name.
    struct Trigger: Equatable {
        let name: String
        let sql: String
    }

    /// The functions Apple's triggers call to tell the saving context a derived value changed;
    /// ours call them too, so both kinds of trigger report to `SQLiteDerivedValueReports`.
    static let updatedFunction = "NSCoreDataDATriggerUpdatedAffectedObjectValue"
    static let insertUpdatedFunction = "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue"

    /// Seconds since 2001-01-01 (Core Data's date column) of the statement's time: julian day
    /// 2451910.5 is 2001-01-01T00:00:00Z.
    static let nowSQL = "(julianday('now') - 2451910.5) * 86400.0"

    /// The prefix every trigger of this attribute's name starts with after its table name.
    var namePart: String { "\(entity.name ?? "")_\(attribute.name)" }

    /// The triggers that keep the column up to date, named as Apple names them:
    /// `Z_DA_<TABLE>_<Entity>_<attribute>_<ROLE>`, where TABLE is the table the trigger is on,
    /// SOURCE triggers sit on the attribute's own table and PARAMETER triggers on the tables of
    /// the values it is derived from. The `@count` triggers of a to-many kept by a foreign key
    /// are Apple's, word for word (fixture `SampleModel2_V1.sqlite`).
    func triggers(in schema: SQLStoreSchema, dialect: any SQLDialect) -> [Trigger] {
        guard let table = schema.table(for: entity), let column = table.valueColumn(for: attribute) else { return [] }
        let sql = SQLText(derivation: self, schema: schema, dialect: dialect, table: table, column: column.name)
        switch kind {
        case .count(let relationship):
            if let join = schema.joinTable(for: relationship) {
                return sql.joinAggregateTriggers(relationship, join, summed: nil)
            }
            return sql.countTriggers(relationship)
        case .sum(let relationship, let summed):
            if let join = schema.joinTable(for: relationship) {
                return sql.joinAggregateTriggers(relationship, join, summed: summed)
            }
            return sql.sumTriggers(relationship, summed)
        case .value(let via, let source, let transform):
            return sql.valueTriggers(via: via, source, transform)
        case .now:
            return sql.nowTriggers()
        }
    }

    /// `UPDATE` computing the column for every existing row: after a migration created the
    /// triggers, or when triggers were added to a store written without them.
    func fillStatement(in schema: SQLStoreSchema, dialect: any SQLDialect) -> String? {
        guard let table = schema.table(for: entity), let column = table.valueColumn(for: attribute) else { return nil }
        let sql = SQLText(derivation: self, schema: schema, dialect: dialect, table: table, column: column.name)
        return sql.fill()
    }
}

// MARK: - SQL text

/// Builds the trigger text of one derivation. Trigger bodies cannot bind parameters, so names
/// are quoted through the dialect and the two string constants written as literals.
private struct SQLText {
    let derivation: SQLiteDerivation
    let schema: SQLStoreSchema
    let dialect: any SQLDialect
    /// The table holding the derived column.
    let table: SQLTable
    let column: String

    private func q(_ name: String) -> String { dialect.quote(name) }

    private var owner: String { q(table.name) }
    private var derived: String { q(column) }

    private func name(on tableName: String, _ role: String) -> String {
        "Z_DA_\(tableName)_\(derivation.namePart)_\(role)"
    }

    /// `SELECT NSCoreDataDATrigger…(table, Z_ENT, Z_PK, attribute, value) FROM owner WHERE condition;`
    private func report(_ function: String, where condition: String) -> String {
        "SELECT \(function)(\(dialect.stringLiteral(table.name)), Z_ENT, Z_PK, \(dialect.stringLiteral(derivation.attribute.name)), \(derived)) FROM \(owner) WHERE \(condition);"
    }

    private func create(_ name: String, _ event: String, on tableName: String, when condition: String?, _ body: String) -> SQLiteDerivation.Trigger {
        let when = condition.map { " WHEN (\($0))" } ?? ""
        return .init(name: name, sql: "CREATE TRIGGER \(q(name)) \(event) ON \(q(tableName)) FOR EACH ROW\(when) BEGIN \(body) END")
    }

    /// `NEW.Z_ENT IN (…)` when the owner's table also holds rows of entities without the attribute.
    private var ownEntityCondition: String? {
        let numbers = schema.entityNumbers(of: derivation.entity, includingSubentities: true)
        guard numbers.count < table.entities.count else { return nil }
        return "NEW.Z_ENT IN (" + numbers.map(String.init).joined(separator: ", ") + ")"
    }

    /// `UPDATE owner SET column = value WHERE Z_PK = key; SELECT report…`
    private func setOwner(_ value: String, key: String, inserting: Bool = false) -> String {
        "UPDATE \(owner) SET \(derived) = \(value) WHERE Z_PK = \(key); "
            + report(inserting ? SQLiteDerivation.insertUpdatedFunction : SQLiteDerivation.updatedFunction, where: "Z_PK = \(key)")
    }

    // MARK: @count by foreign key (Apple's text)

    func countTriggers(_ relationship: NSRelationshipDescription) -> [SQLiteDerivation.Trigger] {
        guard let (child, foreignKey) = childForeignKey(relationship) else { return [] }
        let key = q(foreignKey)
        return [
            create(name(on: child.name, "PARAMETER_INSERT"), "AFTER INSERT", on: child.name, when: "NEW.\(key) NOT NULL",
                   setOwner("IFNULL(\(derived), 0) + 1", key: "NEW.\(key)")),
            create(name(on: child.name, "PARAMETER_UPDATE_INCREMENT"), "AFTER UPDATE OF \(key)", on: child.name, when: "NEW.\(key) NOT NULL",
                   setOwner("\(derived) + 1", key: "NEW.\(key)")),
            create(name(on: child.name, "PARAMETER_UPDATE_DECREMENT"), "AFTER UPDATE OF \(key)", on: child.name, when: "OLD.\(key) NOT NULL",
                   setOwner("\(derived) - 1", key: "OLD.\(key)")),
            create(name(on: child.name, "PARAMETER_DELETE"), "AFTER DELETE", on: child.name, when: "OLD.\(key) NOT NULL",
                   setOwner("\(derived) - 1", key: "OLD.\(key)")),
            create(name(on: table.name, "SOURCE_INSERT"), "AFTER INSERT", on: table.name, when: ownEntityCondition,
                   setOwner("(SELECT IFNULL(COUNT(\(key)), 0) FROM \(q(child.name)) WHERE \(key) = NEW.Z_PK)", key: "NEW.Z_PK", inserting: true)),
        ]
    }

    // MARK: @sum by foreign key

    /// Recomputed from the children on every change, so a REAL sum never drifts by rounding.
    func sumTriggers(_ relationship: NSRelationshipDescription, _ summed: NSAttributeDescription) -> [SQLiteDerivation.Trigger] {
        guard let (child, foreignKey) = childForeignKey(relationship), let value = child.valueColumn(for: summed) else { return [] }
        let key = q(foreignKey)
        let total = { (parent: String) in "(SELECT IFNULL(SUM(c.\(q(value.name))), 0) FROM \(q(child.name)) AS c WHERE c.\(key) = \(parent))" }
        return [
            create(name(on: child.name, "PARAMETER_INSERT"), "AFTER INSERT", on: child.name, when: "NEW.\(key) NOT NULL",
                   setOwner(total("NEW.\(key)"), key: "NEW.\(key)")),
            create(name(on: child.name, "PARAMETER_UPDATE_INCREMENT"), "AFTER UPDATE OF \(key), \(q(value.name))", on: child.name,
                   when: "NEW.\(key) NOT NULL", setOwner(total("NEW.\(key)"), key: "NEW.\(key)")),
            create(name(on: child.name, "PARAMETER_UPDATE_DECREMENT"), "AFTER UPDATE OF \(key)", on: child.name,
                   when: "OLD.\(key) NOT NULL AND OLD.\(key) IS NOT NEW.\(key)", setOwner(total("OLD.\(key)"), key: "OLD.\(key)")),
            create(name(on: child.name, "PARAMETER_DELETE"), "AFTER DELETE", on: child.name, when: "OLD.\(key) NOT NULL",
                   setOwner(total("OLD.\(key)"), key: "OLD.\(key)")),
            create(name(on: table.name, "SOURCE_INSERT"), "AFTER INSERT", on: table.name, when: ownEntityCondition,
                   setOwner(total("NEW.Z_PK"), key: "NEW.Z_PK", inserting: true)),
        ]
    }

    /// The children's table and the column holding their parent's key (the inverse to-one, or
    /// the owner column of a to-many without an inverse).
    private func childForeignKey(_ relationship: NSRelationshipDescription) -> (SQLTable, String)? {
        schema.keyColumn(of: relationship).map { ($0.table, $0.column.name) }
    }

    // MARK: @count and @sum through a join table

    /// A many-to-many (or a to-many without inverse in an earlier OpenCoreData's join table): pairs added or removed recompute the
    /// value; for `@sum`, so does a change of the summed attribute.
    func joinAggregateTriggers(_ relationship: NSRelationshipDescription, _ join: SQLJoinTable,
                               summed: NSAttributeDescription?) -> [SQLiteDerivation.Trigger] {
        let access = join.access(for: relationship)
        let selfColumn = q(access.selfColumn), other = q(access.otherColumn)
        guard let destination = relationship.destinationEntity, let child = schema.table(for: destination) else { return [] }
        let value = summed.flatMap { child.valueColumn(for: $0) }
        if summed != nil && value == nil { return [] }
        let aggregate = { (parent: String) -> String in
            if let value {
                return "(SELECT IFNULL(SUM(c.\(q(value.name))), 0) FROM \(q(join.name)) AS j JOIN \(q(child.name)) AS c ON c.Z_PK = j.\(other) WHERE j.\(selfColumn) = \(parent))"
            }
            return "(SELECT COUNT(*) FROM \(q(join.name)) AS j WHERE j.\(selfColumn) = \(parent))"
        }
        var triggers = [
            create(name(on: join.name, "PARAMETER_INSERT"), "AFTER INSERT", on: join.name, when: nil,
                   setOwner(aggregate("NEW.\(selfColumn)"), key: "NEW.\(selfColumn)")),
            create(name(on: join.name, "PARAMETER_DELETE"), "AFTER DELETE", on: join.name, when: nil,
                   setOwner(aggregate("OLD.\(selfColumn)"), key: "OLD.\(selfColumn)")),
        ]
        if let value {
            let owners = "Z_PK IN (SELECT \(selfColumn) FROM \(q(join.name)) WHERE \(other) = NEW.Z_PK)"
            triggers.append(create(name(on: child.name, "PARAMETER_UPDATE"), "AFTER UPDATE OF \(q(value.name))", on: child.name, when: nil,
                                   "UPDATE \(owner) SET \(derived) = \(aggregate("\(owner).Z_PK")) WHERE \(owners); "
                                   + report(SQLiteDerivation.updatedFunction, where: owners)))
        }
        triggers.append(create(name(on: table.name, "SOURCE_INSERT"), "AFTER INSERT", on: table.name, when: ownEntityCondition,
                               setOwner(aggregate("NEW.Z_PK"), key: "NEW.Z_PK", inserting: true)))
        return triggers
    }

    // MARK: Key paths

    /// `attribute` or `toOne.attribute`, optionally through `canonical:`/`lowercase:`/`uppercase:`.
    func valueTriggers(via relationship: NSRelationshipDescription?, _ source: NSAttributeDescription,
                       _ transform: Transform?) -> [SQLiteDerivation.Trigger] {
        let apply = { (value: String) in transform.map { "\($0.sqlFunction)(\(value))" } ?? value }
        guard let relationship else {
            guard let value = table.valueColumn(for: source) else { return [] }
            let read = apply("NEW.\(q(value.name))")
            return [
                create(name(on: table.name, "SOURCE_INSERT"), "AFTER INSERT", on: table.name, when: ownEntityCondition,
                       setOwner(read, key: "NEW.Z_PK", inserting: true)),
                create(name(on: table.name, "SOURCE_UPDATE"), "AFTER UPDATE OF \(q(value.name))", on: table.name, when: ownEntityCondition,
                       setOwner(read, key: "NEW.Z_PK")),
            ]
        }
        guard let foreignKey = table.valueColumn(for: relationship), let destination = relationship.destinationEntity,
              let target = schema.table(for: destination), let value = target.valueColumn(for: source) else { return [] }
        let key = q(foreignKey.name)
        let lookup = { (pk: String) in "(SELECT \(apply("u.\(q(value.name))")) FROM \(q(target.name)) AS u WHERE u.Z_PK = \(pk))" }
        let dependents = "\(key) = NEW.Z_PK"
        return [
            create(name(on: table.name, "SOURCE_INSERT"), "AFTER INSERT", on: table.name, when: ownEntityCondition,
                   setOwner(lookup("NEW.\(key)"), key: "NEW.Z_PK", inserting: true)),
            create(name(on: table.name, "SOURCE_UPDATE"), "AFTER UPDATE OF \(key)", on: table.name, when: ownEntityCondition,
                   setOwner(lookup("NEW.\(key)"), key: "NEW.Z_PK")),
            create(name(on: target.name, "PARAMETER_UPDATE"), "AFTER UPDATE OF \(q(value.name))", on: target.name, when: nil,
                   "UPDATE \(owner) SET \(derived) = \(apply("NEW.\(q(value.name))")) WHERE \(dependents); "
                   + report(SQLiteDerivation.updatedFunction, where: dependents)),
            create(name(on: target.name, "PARAMETER_DELETE"), "AFTER DELETE", on: target.name, when: nil,
                   "UPDATE \(owner) SET \(derived) = NULL WHERE \(key) = OLD.Z_PK; "
                   + report(SQLiteDerivation.updatedFunction, where: "\(key) = OLD.Z_PK")),
        ]
    }

    typealias Transform = SQLiteDerivation.StringTransform

    // MARK: now()

    /// Set on insert, and on every update of a stored column of the row (a save bumps `Z_OPT`).
    func nowTriggers() -> [SQLiteDerivation.Trigger] {
        let derivedColumns = Set(table.columns.filter { $0.property is NSDerivedAttributeDescription }.map(\.name))
        let watched = ["Z_OPT"] + table.columnIndices(for: derivation.entity).map { table.columns[$0].name }.filter { !derivedColumns.contains($0) }
        return [
            create(name(on: table.name, "SOURCE_INSERT"), "AFTER INSERT", on: table.name, when: ownEntityCondition,
                   setOwner(SQLiteDerivation.nowSQL, key: "NEW.Z_PK", inserting: true)),
            create(name(on: table.name, "SOURCE_UPDATE"), "AFTER UPDATE OF " + watched.map(q).joined(separator: ", "), on: table.name,
                   when: ownEntityCondition, setOwner(SQLiteDerivation.nowSQL, key: "NEW.Z_PK")),
        ]
    }

    // MARK: Filling existing rows

    func fill() -> String {
        let row = owner
        let value: String
        switch derivation.kind {
        case .count(let relationship):
            if let join = schema.joinTable(for: relationship) {
                value = "(SELECT COUNT(*) FROM \(q(join.name)) AS j WHERE j.\(q(join.access(for: relationship).selfColumn)) = \(row).Z_PK)"
            } else if let (child, foreignKey) = childForeignKey(relationship) {
                value = "(SELECT COUNT(c.\(q(foreignKey))) FROM \(q(child.name)) AS c WHERE c.\(q(foreignKey)) = \(row).Z_PK)"
            } else {
                value = "NULL"
            }
        case .sum(let relationship, let summed):
            guard let destination = relationship.destinationEntity, let child = schema.table(for: destination),
                  let column = child.valueColumn(for: summed) else { value = "NULL"; break }
            if let join = schema.joinTable(for: relationship) {
                let access = join.access(for: relationship)
                value = "(SELECT IFNULL(SUM(c.\(q(column.name))), 0) FROM \(q(join.name)) AS j JOIN \(q(child.name)) AS c ON c.Z_PK = j.\(q(access.otherColumn)) WHERE j.\(q(access.selfColumn)) = \(row).Z_PK)"
            } else if let (_, foreignKey) = childForeignKey(relationship) {
                value = "(SELECT IFNULL(SUM(c.\(q(column.name))), 0) FROM \(q(child.name)) AS c WHERE c.\(q(foreignKey)) = \(row).Z_PK)"
            } else {
                value = "NULL"
            }
        case .value(let via, let source, let transform):
            let apply = { (value: String) in transform.map { "\($0.sqlFunction)(\(value))" } ?? value }
            if let via {
                guard let foreignKey = table.valueColumn(for: via), let destination = via.destinationEntity,
                      let target = schema.table(for: destination), let column = target.valueColumn(for: source) else { value = "NULL"; break }
                value = "(SELECT \(apply("u.\(q(column.name))")) FROM \(q(target.name)) AS u WHERE u.Z_PK = \(row).\(q(foreignKey.name)))"
            } else {
                value = table.valueColumn(for: source).map { apply("\(row).\(q($0.name))") } ?? "NULL"
            }
        case .now:
            value = "IFNULL(\(derived), \(SQLiteDerivation.nowSQL))"
        }
        var statement = "UPDATE \(owner) SET \(derived) = \(value)"
        if let condition = ownEntityCondition {
            statement += " WHERE " + condition.replacingOccurrences(of: "NEW.", with: "")
        }
        return statement
    }
}
