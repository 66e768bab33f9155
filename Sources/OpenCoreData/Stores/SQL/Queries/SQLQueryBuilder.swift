import Foundation

/// Translates store requests to SQL: fetches, counts, ID fetches, row lookups and relationship
/// destinations. Every value is a bound argument; golden-SQL tests pin the text down.
package struct SQLQueryBuilder {
    package let schema: SQLStoreSchema
    /// The dialect the statements are spelled in.
    package let dialect: any SQLDialect

    package init(schema: SQLStoreSchema, dialect: any SQLDialect) {
        self.schema = schema
        self.dialect = dialect
    }

    private static let alias = SQLTranslationState.rootAlias

    // MARK: - Fetch requests

    /// The SELECT of a fetch request, with the filter, sort and paging it asks for.
    /// - Throws: `SQLTranslationError` when part of the request cannot be lowered to SQL.
    package func select(_ request: SQLFetchQuery, columns: [SQLFragment]) throws -> SQLSelect {
        try select(request) { _ throws(SQLTranslationError) in columns }
    }

    /// The SELECT of a fetch request whose columns are key paths resolved with the request's
    /// translation state, so they share its joins.
    package func select(_ request: SQLFetchQuery,
                        columns: (inout SQLTranslationState) throws(SQLTranslationError) -> [SQLFragment]) throws(SQLTranslationError) -> SQLSelect {
        guard let table = schema.table(for: request.entity) else {
            throw SQLTranslationError("Entity '\(request.entity.name ?? "?")' is not in this store.")
        }
        var state = SQLTranslationState(schema: schema, dialect: dialect, entity: request.entity, storeIdentifier: request.storeIdentifier)
        var select = SQLSelect(from: dialect.identifier(table.name) + " " + dialect.identifier(Self.alias))
        select.columns = try columns(&state)
        if let filter = entityFilter(request.entity, includesSubentities: request.includesSubentities, alias: Self.alias) {
            select.conditions.append(filter)
        }
        if let predicate = request.predicate, let condition = try state.condition(for: predicate) {
            select.conditions.append(condition)
        }
        if !request.sortKeys.isEmpty {
            for key in request.sortKeys {
                select.orderBy.append(try state.orderTerm(for: key))
            }
            // Equal keys keep primary-key order, as the in-memory sort keeps store order.
            select.orderBy.append(dialect.column("Z_PK", of: Self.alias))
        }
        select.joins = state.joins
        select.limit = request.limit
        select.offset = request.offset
        return select
    }

    /// `SELECT Z_PK, Z_ENT` of a fetch request (for `fetchBatchSize` and ID results).
    package func selectObjectIDs(_ request: SQLFetchQuery) throws -> SQLSelect {
        try select(request, columns: [dialect.column("Z_PK", of: Self.alias), dialect.column("Z_ENT", of: Self.alias)])
    }

    /// `SELECT COUNT(*)` of a fetch request, paging included.
    package func count(_ request: SQLFetchQuery) throws -> SQLFragment {
        try select(request, columns: [dialect.column("Z_PK", of: Self.alias)]).renderCount(in: dialect)
    }

    /// `t0.Z_ENT = ?` or `t0.Z_ENT IN (?, …)` when the table also hosts other entities.
    package func entityFilter(_ entity: NSEntityDescription, includesSubentities: Bool, alias: String) -> SQLFragment? {
        guard schema.needsEntityFilter(entity, includingSubentities: includesSubentities) else { return nil }
        let numbers = schema.entityNumbers(of: entity, includingSubentities: includesSubentities).map { SQLValue.integer(Int64($0)) }
        if numbers.count == 1 { return dialect.column("Z_ENT", of: alias) + " = " + dialect.parameter(numbers[0]) }
        return dialect.column("Z_ENT", of: alias) + " IN " + dialect.parameterList(numbers)
    }

    // MARK: - Rows by primary key

    /// The rows of a table whose primary keys are in a list of `count` keys.
    package func rows(in table: SQLTable, columns: [SQLFragment], keys: [Int64]) -> SQLFragment {
        var select = SQLSelect(from: dialect.identifier(table.name) + " " + dialect.identifier(Self.alias))
        select.columns = columns
        select.conditions = [dialect.column("Z_PK", of: Self.alias) + " IN " + dialect.parameterList(keys.map(SQLValue.integer))]
        return select.render(in: dialect)
    }

    // MARK: - Relationship destinations

    /// The destinations of one object's relationship in one query, in order for ordered relationships.
    ///
    /// - to-one: the destination row, found through the source row's foreign key;
    /// - to-many with a to-one inverse: the rows whose foreign key is the source (ordered by `Z_FOK_`);
    /// - to-many without an inverse: the rows whose owner column (`Z<n><REL>`) is the source;
    /// - many-to-many: the rows joined through the join table (ordered by its `Z_FOK_` column).
    package func destinations(of relationship: NSRelationshipDescription, sourceKey: Int64, columns: [SQLFragment]) throws -> SQLFragment {
        guard let destination = relationship.destinationEntity, let destinationTable = schema.table(for: destination),
              let source = relationship.entity, let sourceTable = schema.table(for: source) else {
            throw SQLTranslationError("Relationship '\(relationship.name)' has no destination table in this store.")
        }
        let alias = Self.alias
        var select = SQLSelect(from: dialect.identifier(destinationTable.name) + " " + dialect.identifier(alias))
        select.columns = columns
        let key = dialect.parameter(.integer(sourceKey))
        if !relationship.isToMany {
            guard let fk = sourceTable.valueColumn(for: relationship) else {
                throw SQLTranslationError("Relationship '\(relationship.name)' has no foreign-key column.")
            }
            select.conditions.append(dialect.column("Z_PK", of: alias) + " = (SELECT " + dialect.identifier(fk.name) + " FROM "
                                     + dialect.identifier(sourceTable.name) + " WHERE " + dialect.identifier("Z_PK") + " = " + key + ")")
        } else if let join = schema.joinTable(for: relationship) {
            let access = join.access(for: relationship)
            let j = "j"
            select.from = select.from + " JOIN " + dialect.identifier(join.name) + " " + dialect.identifier(j)
                + " ON " + dialect.column(access.otherColumn, of: j) + " = " + dialect.column("Z_PK", of: alias)
            select.conditions.append(dialect.column(access.selfColumn, of: j) + " = " + key)
            if let order = access.orderColumn {
                select.orderBy = [dialect.column(order, of: j)]
            }
        } else if let fk = schema.keyColumn(of: relationship)?.column {
            select.conditions.append(dialect.column(fk.name, of: alias) + " = " + key)
            if let inverse = relationship.inverseRelationship, let order = destinationTable.orderColumnByProperty[ObjectIdentifier(inverse)] {
                select.orderBy = [dialect.column(destinationTable.columns[order].name, of: alias), dialect.column("Z_PK", of: alias)]
            }
        } else {
            throw SQLTranslationError("Relationship '\(relationship.name)' is stored neither in a foreign key nor in a join table.")
        }
        if let filter = entityFilter(destination, includesSubentities: true, alias: alias) {
            select.conditions.append(filter)
        }
        return select.render(in: dialect)
    }
}
