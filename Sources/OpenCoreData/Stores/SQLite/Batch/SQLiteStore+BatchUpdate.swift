import Foundation
import GRDB

// MARK: - Batch update

extension SQLiteStore {
    /// Updates the matching rows with one `UPDATE … WHERE <the fetch's conditions>`
    /// (`SQLBatchWrite`), returning `Z_PK, Z_ENT` when the keys are needed.
    ///
    /// The predicate lowers as a fetch's does; constants are bound, expressions (`value + 1`,
    /// another attribute) lower to SQL over the updated row. What cannot be lowered is an error,
    /// never an in-memory scan. `Z_OPT` is incremented on every updated row, so a context still
    /// holding the old version meets an optimistic-locking conflict when it saves.
    func batchUpdate(_ update: StoreBatchUpdate, into changes: inout StoreBatchChanges, files: SQLiteExternalDataWrites,
                     db: Database, store: NSPersistentStore) throws {
        let dialect = Self.dialect
        let alias = SQLTranslationState.rootAlias
        let entityName = update.entity.name ?? "?"
        guard let table = schema.table(for: update.entity) else {
            throw Self.batchError("The store holds no entity '\(entityName)'.")
        }
        let query = SQLFetchQuery(entity: update.entity, includesSubentities: update.includesSubentities, predicate: update.predicate,
                                  storeIdentifier: store.identifier)
        let matching: SQLSelect
        do {
            matching = try builder.select(query, columns: [dialect.column("Z_PK", of: alias)])
        } catch {
            throw Self.batchError("The predicate of the batch update of '\(entityName)' cannot be evaluated in SQL: \(error)")
        }

        var state = SQLTranslationState(schema: schema, dialect: dialect, entity: update.entity, storeIdentifier: store.identifier)
        var assignments: [(column: String, value: SQLFragment)] = []
        var externalColumns: [String] = []
        for assignment in update.assignments {
            let attribute = assignment.attribute
            guard let column = table.valueColumn(for: attribute) else {
                throw Self.batchError("The attribute '\(attribute.name)' of '\(entityName)' has no column in the store.")
            }
            var value: SQLFragment
            switch assignment.value {
            case .constant(let constant):
                if SQLiteExternalData.isExternal(attribute), externalData.readsForeignReferences, case .data(let data) = constant,
                   SQLiteExternalData.foreignReference(data) != nil {
                    // One UPDATE binds one value for every row, and a save would give each row a
                    // file of its own: in a store another implementation made, a BLOB of this
                    // shape is that implementation's reference, so it is never written as a value.
                    throw Self.batchError("The batch update of '\(entityName)' sets '\(attribute.name)' to a value shaped like an external-data reference of the store's other implementation; save it through a context instead.",
                                          userInfo: [NSValidationKeyErrorKey: attribute.name])
                }
                value = boundValue(constant)
            case .expression(let expression):
                value = try loweredValue(expression, of: attribute, entityName: entityName, state: &state)
                if SQLiteExternalData.isExternal(attribute), !expression.node.isConstant(bound: []) {
                    // A copied column may hold a reference to another row's file.
                    throw Self.batchError("The batch update of '\(entityName)' sets '\(attribute.name)', which allows external storage, to an expression over the row; only constants can be stored there.",
                                          userInfo: [NSValidationKeyErrorKey: attribute.name])
                }
            }
            if SQLiteExternalData.isExternal(attribute) { externalColumns.append(column.name) }
            if attribute.attributeType == .floatAttributeType {
                // A float attribute holds what a Float holds, as a save stores it.
                value = dialect.call(.float, [value])
            }
            assignments.append((column.name, value))
        }
        guard state.joins.isEmpty else {
            throw Self.batchError("A value of the batch update of '\(entityName)' reads through a to-one relationship; only the updated row's own attributes can be read.")
        }
        assignments.append(("Z_OPT", dialect.column("Z_OPT", of: alias) + " + 1"))

        // The fetch's conditions go straight into the UPDATE when they need no join (they read
        // the updated row through the same alias); else the rows are those of the fetch's SELECT.
        let condition: SQLFragment
        if !matching.joins.isEmpty {
            condition = dialect.column("Z_PK", of: alias) + " IN (" + matching.render(in: dialect) + ")"
        } else if matching.conditions.isEmpty {
            condition = SQLFragment("1")
        } else {
            condition = matching.conditions.count == 1 ? matching.conditions[0] : matching.conditions.map { "(" + $0 + ")" }.joined(separator: " AND ")
        }
        if !externalColumns.isEmpty {
            try noteExternalFiles(externalColumns, table: table, condition: condition, files: files, db: db)
        }
        // `RETURNING` about doubles the statement's time (W6-batch): the keys are collected only
        // when the result returns IDs or history records the rows.
        let collectsKeys = update.needsKeys || keepsHistory
        let statement = SQLBatchWrite(.update(assignments), table: table.name, alias: alias, where: condition,
                                      returning: collectsKeys ? ["Z_PK", "Z_ENT"] : [])
        guard collectsKeys else {
            var count = 0
            try run(db, statement.render(in: dialect)) { statement, arguments in
                try statement.execute(arguments: arguments)
                count = db.changesCount
            }
            changes.append(.update, entity: update.entity, count: count)
            return
        }
        let names = update.assignments.map(\.attribute.name).sorted()
        for row in try keyRows(db, statement.render(in: dialect)) {
            changes.append(.update, entity: schema.entity(number: Int(row.entity)) ?? update.entity, primaryKey: row.key, updatedProperties: names)
        }
    }

    /// A constant as a bound parameter. A value of an attribute that allows external storage
    /// stays in the rows: one file shared by every updated row would be removed with the first
    /// of them to be deleted or changed (reads take a BLOB in the row as the value itself).
    private func boundValue(_ constant: StoreValue) -> SQLFragment {
        Self.dialect.parameter(SQLValueCoding.value(constant))
    }

    /// An expression lowered to SQL over the updated row; its kind must suit the attribute.
    private func loweredValue(_ expression: NSExpression, of attribute: NSAttributeDescription, entityName: String,
                              state: inout SQLTranslationState) throws -> SQLFragment {
        let lowered: SQLOperand
        do {
            lowered = try expression.node.lower(&state)
        } catch {
            throw Self.batchError("The value \(expression) for '\(attribute.name)' in the batch update of '\(entityName)' cannot be evaluated in SQL: \(error)")
        }
        switch lowered {
        case .constant(let raw):
            // Constant expressions are evaluated by the context (`NSBatchUpdateRequest`); one the
            // lowering folds here converts like a constant, custom types excepted.
            let type = attribute.attributeType
            guard !AttributeConversion.isCustom(type), let converted = AttributeConversion.storeValue(raw, type: type) else {
                throw Self.batchError("The value \(expression) is a \(AttributeConversion.typeName(of: raw)), not a value of the \(type.xmlName) attribute '\(attribute.name)' of '\(entityName)'.",
                                      userInfo: [NSValidationKeyErrorKey: attribute.name])
            }
            return boundValue(converted)
        case .scalar(let scalar):
            guard let wanted = SQLValueKind(attributeType: attribute.attributeType), wanted.isComparable(with: scalar.kind) else {
                throw Self.batchError("The value \(expression) does not suit the \(attribute.attributeType.xmlName) attribute '\(attribute.name)' of '\(entityName)'.",
                                      userInfo: [NSValidationKeyErrorKey: attribute.name])
            }
            return scalar.sql
        case .object, .collection, .list:
            throw Self.batchError("The value \(expression) for '\(attribute.name)' of '\(entityName)' is not a single value per row.",
                                  userInfo: [NSValidationKeyErrorKey: attribute.name])
        }
    }

    /// Records the external files the matching rows' columns refer to, to remove after the commit.
    func noteExternalFiles(_ columns: [String], table: SQLTable, condition: SQLFragment, files: SQLiteExternalDataWrites, db: Database) throws {
        let dialect = Self.dialect
        let alias = SQLTranslationState.rootAlias
        var select = SQLSelect(from: dialect.identifier(table.name) + " " + dialect.identifier(alias))
        select.columns = columns.map { dialect.column($0, of: alias) }
        select.conditions = [condition]
        try run(db, select.render(in: dialect)) { statement, arguments in
            let cursor = try Row.fetchCursor(statement, arguments: arguments)
            while let row = try cursor.next() {
                files.noteReplaced(row, db: db) { _ in true }
            }
        }
    }
}
