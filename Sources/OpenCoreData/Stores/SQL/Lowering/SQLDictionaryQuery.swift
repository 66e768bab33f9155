import Foundation

/// A `.dictionaryResultType` fetch in SQL, computing exactly what `DictionaryResults` computes
/// in memory from the matching objects:
///
/// - plain rows: the fetched key paths per object, sorted and paged (to-one relationships as IDs);
/// - grouped rows (`propertiesToGroupBy` or aggregate `NSExpressionDescription`s): one row per
///   group, in the order each group's first object comes in the sorted objects —
///   `SELECT … FROM (SELECT …, ROW_NUMBER() OVER (ORDER BY <sort>) AS rn …) GROUP BY … HAVING …
///   ORDER BY MIN(rn)` — with `count:`, `sum:`, `average:`, `min:`, `max:`;
/// - `returnsDistinctResults`: grouped by every fetched column, then de-duplicated like memory.
///
/// Anything else throws `SQLTranslationError` and the context computes the rows in memory:
/// paging with grouping or distinct (memory pages the objects before grouping them), a fetched
/// column that is neither grouped nor aggregated, decimal sums and averages, to-many columns.
package struct SQLDictionaryQuery {
    /// How a result column's SQL value becomes the dictionary's value.
    package enum Output {
        case attribute(NSAttributeDescription)
        /// A to-one relationship: the destination's `Z_PK` and `Z_ENT` (two SQL columns).
        case objectID(NSEntityDescription)
        case count
        case sum(isInteger: Bool)
        case average
    }

    package struct Column {
        package let name: String
        package let output: Output
    }

    package let sql: SQLFragment
    package let columns: [Column]
    package let deduplicates: Bool

    private enum Spec {
        case value(name: String, keyPath: String)
        case aggregate(name: String, function: String, keyPath: String)

        var keyPath: String {
            switch self {
            case .value(_, let keyPath), .aggregate(_, _, let keyPath): keyPath
            }
        }
    }

    /// - Throws: `SQLTranslationError` when SQL cannot give memory's rows exactly.
    package init(_ request: StoreDictionaryRequest, builder: SQLQueryBuilder, storeIdentifier: String?) throws(SQLTranslationError) {
        let entity = request.fetch.entity
        let elements = request.propertiesToFetch ?? entity.properties.filter { $0 is NSAttributeDescription && $0.isStored }
        var specs: [Spec] = []
        for element in elements { specs.append(try Self.spec(element, entity: entity)) }
        var groupKeyPaths: [String] = []
        for element in request.propertiesToGroupBy ?? [] {
            guard case .value(_, let keyPath) = try Self.spec(element, entity: entity) else {
                throw .unsupported("propertiesToGroupBy", "an expression is not a grouping key")
            }
            groupKeyPaths.append(keyPath)
        }
        let hasAggregates = specs.contains { if case .aggregate = $0 { true } else { false } }
        let grouped = hasAggregates || !groupKeyPaths.isEmpty
        let fetch = request.fetch
        if (grouped || request.returnsDistinctResults) && (fetch.fetchLimit > 0 || fetch.fetchOffset > 0) {
            throw .unsupported("fetchLimit", "memory pages the objects before it groups or de-duplicates them")
        }
        let query: SQLFetchQuery
        do {
            query = try SQLFetchQuery(fetch, storeIdentifier: storeIdentifier)
        } catch {
            throw error
        }
        deduplicates = request.returnsDistinctResults

        if !grouped && !request.returnsDistinctResults {
            var columns: [Column] = []
            let select = try builder.select(query) { state throws(SQLTranslationError) in
                var sql: [SQLFragment] = []
                for case .value(let name, let keyPath) in specs {
                    let (fragments, output) = try Self.value(keyPath, &state)
                    sql += fragments
                    columns.append(Column(name: name, output: output))
                }
                return sql
            }
            self.sql = select.render(in: builder.dialect)
            self.columns = columns
            return
        }

        // Grouped or distinct: the inner query yields each object's values and its position.
        var inner: [(keyPath: String, fragments: [SQLFragment], output: Output, scalar: SQLScalar?)] = []
        var select = try builder.select(query) { state throws(SQLTranslationError) in
            for keyPath in groupKeyPaths + specs.map(\.keyPath) where !inner.contains(where: { $0.keyPath == keyPath }) {
                let resolved = try state.resolve(keyPath, from: .object(state.evaluatedObject))
                switch resolved {
                case .scalar(let scalar) where scalar.attribute != nil:
                    inner.append((keyPath, [scalar.sql], .attribute(scalar.attribute!), scalar))
                case .object(let object):
                    let alias = try state.rowAlias(of: object)
                    inner.append((keyPath, [object.key, state.dialect.column("Z_ENT", of: alias)], .objectID(object.entity), object.scalar))
                default:
                    throw .unsupported("dictionary column '\(keyPath)'", "it is not an attribute or to-one relationship")
                }
            }
            return []
        }
        var innerColumns: [SQLFragment] = []
        var names: [String: [SQLFragment]] = [:]
        for (index, column) in inner.enumerated() {
            var aliases: [SQLFragment] = []
            for (part, fragment) in column.fragments.enumerated() {
                let alias = builder.dialect.identifier("c\(index)_\(part)")
                innerColumns.append(fragment + " AS " + alias)
                aliases.append(alias)
            }
            names[column.keyPath] = aliases
        }
        let order = select.orderBy.isEmpty ? [builder.dialect.column("Z_PK", of: SQLTranslationState.rootAlias)] : select.orderBy
        innerColumns.append("ROW_NUMBER() OVER (ORDER BY " + order.joined(separator: ", ") + ") AS rn")
        select.columns = innerColumns
        select.orderBy = []

        func collated(_ fragment: SQLFragment, _ scalar: SQLScalar?) -> SQLFragment {
            scalar?.kind.isText == true ? builder.dialect.collate(fragment, .compare) : fragment
        }
        let keys = grouped ? groupKeyPaths : specs.map(\.keyPath)
        var groupBy: [SQLFragment] = []
        for keyPath in keys {
            guard let column = inner.first(where: { $0.keyPath == keyPath }), let aliases = names[keyPath] else { continue }
            if case .objectID = column.output {
                groupBy.append(aliases[0])
            } else {
                groupBy.append(collated(aliases[0], column.scalar))
            }
        }
        var outer: [SQLFragment] = []
        var columns: [Column] = []
        var resultColumns: [String: SQLOperand] = [:]
        for spec in specs {
            switch spec {
            case .value(let name, let keyPath):
                guard !grouped || groupKeyPaths.contains(keyPath), let column = inner.first(where: { $0.keyPath == keyPath }),
                      let aliases = names[keyPath] else {
                    throw .unsupported("dictionary column '\(keyPath)'", "it is neither grouped nor aggregated")
                }
                if grouped, case .objectID = column.output {
                    throw .unsupported("dictionary column '\(keyPath)'", "memory returns the object of a grouped relationship")
                }
                outer += aliases
                columns.append(Column(name: name, output: column.output))
                if let scalar = column.scalar { resultColumns[name] = .scalar(SQLScalar(aliases[0], kind: scalar.kind, attribute: scalar.attribute)) }
            case .aggregate(let name, let function, let keyPath):
                guard let column = inner.first(where: { $0.keyPath == keyPath }), let scalar = column.scalar, let value = names[keyPath]?.first else {
                    throw .unsupported("aggregate '\(name)'", "'\(keyPath)' is not a value")
                }
                let (sql, output, kind) = try Self.aggregate(function, of: value, scalar, name: name, builder.dialect)
                outer.append(sql)
                columns.append(Column(name: name, output: output))
                resultColumns[name] = .scalar(SQLScalar(sql, kind: kind, attribute: scalar.attribute))
            }
        }
        var statement = "SELECT " + outer.joined(separator: ", ") + " FROM (" + select.render(in: builder.dialect) + ")"
        if !groupBy.isEmpty { statement.append(" GROUP BY " + groupBy.joined(separator: ", ")) }
        if let having = request.havingPredicate {
            var state = SQLTranslationState(schema: builder.schema, dialect: builder.dialect, entity: entity, storeIdentifier: storeIdentifier)
            state.resultColumns = resultColumns
            // `$count` reads the `count` column, as a key does.
            state.variables = resultColumns
            let condition = try having.node.lower(&state)
            guard state.joins.isEmpty else { throw .unsupported("havingPredicate", "it reads more than the result row") }
            if case .constant(true) = condition {} else { statement.append(" HAVING " + condition.fragment(in: builder.dialect)) }
        }
        statement.append(" ORDER BY MIN(rn)")
        self.sql = statement
        self.columns = columns
    }

    // MARK: - Columns

    private static func spec(_ element: Any, entity: NSEntityDescription) throws(SQLTranslationError) -> Spec {
        if let description = element as? NSExpressionDescription {
            if let keyPath = description.expression.flatMap(DictionaryColumns.plainKeyPath) {
                return .value(name: description.name, keyPath: keyPath)
            }
            guard let expression = description.expression, let parsed = AggregateExpression.parse(expression),
                  ["count:", "sum:", "min:", "max:", "average:"].contains(parsed.function) else {
                throw .unsupported("expression '\(description.name)'", "it is not count:, sum:, min:, max: or average: of a key path")
            }
            return .aggregate(name: description.name, function: parsed.function, keyPath: parsed.keyPath)
        }
        if let property = element as? NSPropertyDescription { return .value(name: property.name, keyPath: property.name) }
        if let keyPath = element as? String {
            // `objectID` (and `self`) resolve to the row itself: its key and entity, an object ID.
            if DictionaryColumns.objectKeys.contains(keyPath) { return .value(name: keyPath, keyPath: "self") }
            if entity.propertiesByName[keyPath.split(separator: ".").first.map(String.init) ?? keyPath] != nil {
                return .value(name: keyPath, keyPath: keyPath)
            }
        }
        throw .unsupported("propertiesToFetch", "\(element) is not a property of '\(entity.name ?? "?")'")
    }

    /// An attribute column, or a to-one relationship's key and entity.
    private static func value(_ keyPath: String, _ state: inout SQLTranslationState) throws(SQLTranslationError) -> ([SQLFragment], Output) {
        switch try state.resolve(keyPath, from: .object(state.evaluatedObject)) {
        case .scalar(let scalar):
            guard let attribute = scalar.attribute else { throw .unsupported("dictionary column '\(keyPath)'", "it is not an attribute") }
            return ([scalar.sql], .attribute(attribute))
        case .object(let object):
            let alias = try state.rowAlias(of: object)
            return ([object.key, state.dialect.column("Z_ENT", of: alias)], .objectID(object.entity))
        default:
            throw .unsupported("dictionary column '\(keyPath)'", "it is not an attribute or to-one relationship")
        }
    }

    /// `COUNT`, `SUM`/`TOTAL`, `AVG`, `MIN`, `MAX` as memory computes them.
    private static func aggregate(_ function: String, of value: SQLFragment, _ scalar: SQLScalar,
                                  name: String, _ dialect: any SQLDialect) throws(SQLTranslationError) -> (SQLFragment, Output, SQLValueKind) {
        let isDecimal = scalar.attribute?.attributeType == .decimalAttributeType
        switch (function, scalar.kind) {
        case ("count:", _):
            return ("COUNT(" + value + ")", .count, .number(isInteger: true))
        case ("sum:", .number(let isInteger)) where !isDecimal:
            return isInteger ? ("COALESCE(SUM(" + value + "), 0)", .sum(isInteger: true), .number(isInteger: true))
                : (dialect.total(value), .sum(isInteger: false), .number(isInteger: false))
        case ("average:", .number) where !isDecimal:
            return ("AVG(" + value + ")", .average, .number(isInteger: false))
        case ("min:", .number), ("max:", .number), ("min:", .date), ("max:", .date), ("min:", .string), ("max:", .string):
            guard let attribute = scalar.attribute else { break }
            let collated = scalar.kind == .string ? dialect.collate(value, .compare) : value
            return ((function == "min:" ? "MIN(" : "MAX(") + collated + ")", .attribute(attribute), scalar.kind)
        default:
            break
        }
        throw .unsupported("aggregate '\(name)'", "\(function) of \(scalar.kind) values")
    }

    // MARK: - Results

    /// The request's dictionaries from the decoded result rows (each row's keys are the
    /// columns' names; the store decodes the values, `SQLDictionaryQuery+Rows` for SQLite).
    package func results(_ rows: [[String: Any]]) -> [NSDictionary] {
        var rows = rows
        if deduplicates {
            // As memory de-duplicates: by the printed keys and values, keeping the first row.
            var seen = Set<String>()
            rows = rows.filter { row in
                seen.insert(row.keys.sorted().map { "\($0)=\(row[$0]!)" }.joined(separator: "\u{1}")).inserted
            }
        }
        return rows.map { NSDictionary(dictionary: $0) }
    }
}
