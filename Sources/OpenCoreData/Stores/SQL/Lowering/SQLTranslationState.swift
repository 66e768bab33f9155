import Foundation

/// The state of translating one fetch request to SQL: aliases, the joins key paths need, and
/// what `SELF` and `$variables` stand for.
///
/// The predicate lowering (`SQLLowerable`, one method per node kind) and the sort lowering pass
/// it `inout`. A to-one key path is LEFT JOINed once per path; a to-many one becomes a correlated
/// subquery whose joins live in a nested scope, so they end up inside that subquery's FROM.
package struct SQLTranslationState {
    package let schema: SQLStoreSchema
    /// The SQL dialect every fragment is spelled in.
    package let dialect: any SQLDialect
    /// The fetched entity; its table is aliased `t0`.
    package let entity: NSEntityDescription
    /// The identifier of the store queried, when known: object IDs of other stores match no row.
    package let storeIdentifier: String?
    /// What `SELF` stands for: the fetched row, or the element of the SUBQUERY being lowered.
    package var evaluatedObject: SQLObjectReference
    /// SUBQUERY variables in scope.
    package var variables: [String: SQLOperand] = [:]
    /// For a `havingPredicate`: the result row's values by key. `SELF` is then that row (a
    /// dictionary), so a key path's first key names a column and a missing key is nil.
    package var resultColumns: [String: SQLOperand]?

    private var scopes: [Scope] = [Scope(id: 0)]
    private var scopeIDByAlias: [String: Int] = [rootAlias: 0]
    private var aliasCount = 0
    private var scopeCount = 0

    /// Joins made while lowering the part of the query a scope covers.
    private struct Scope {
        let id: Int
        var joins: [SQLFragment] = []
        var aliasesByJoinKey: [String: String] = [:]
    }

    package init(schema: SQLStoreSchema, dialect: any SQLDialect, entity: NSEntityDescription, storeIdentifier: String? = nil) {
        self.schema = schema
        self.dialect = dialect
        self.entity = entity
        self.storeIdentifier = storeIdentifier
        self.evaluatedObject = SQLObjectReference(
            key: dialect.column("Z_PK", of: Self.rootAlias), entity: entity, alias: Self.rootAlias,
            joinKey: Self.rootAlias, ownerAlias: Self.rootAlias, isNullable: false)
    }

    /// The alias of the fetched entity's table.
    package static let rootAlias = "t0"

    /// The most LEFT JOINs one SELECT (the main query or a subquery) may have; SQLite joins at
    /// most 64 tables, and a subquery's FROM holds up to two more (a join table and its rows).
    package static let maximumJoinsPerSelect = 60

    /// LEFT JOINs of the main query, in the order they were needed.
    package var joins: [SQLFragment] { scopes[0].joins }

    // MARK: - Aliases and scopes

    /// A new alias, `t1`, `t2`, … (`j…` for join tables), unique in the statement.
    package mutating func makeAlias(_ prefix: String = "t") -> String {
        aliasCount += 1
        return prefix + String(aliasCount)
    }

    /// Starts a subquery scope: joins from the given aliases go into it.
    package mutating func pushScope(owning aliases: [String]) {
        scopeCount += 1
        scopes.append(Scope(id: scopeCount))
        for alias in aliases { scopeIDByAlias[alias] = scopeCount }
    }

    /// Ends the innermost scope and returns its joins, for the subquery's FROM.
    package mutating func popScope() -> [SQLFragment] {
        precondition(scopes.count > 1, "popScope without pushScope")
        return scopes.removeLast().joins
    }

    /// The alias of an object's row, LEFT JOINing its table (once per path) when needed.
    package mutating func rowAlias(of object: SQLObjectReference) throws(SQLTranslationError) -> String {
        if let alias = object.alias { return alias }
        guard let scopeID = scopeIDByAlias[object.ownerAlias], let index = scopes.firstIndex(where: { $0.id == scopeID }) else {
            throw .unsupported("key path", "'\(object.joinKey)' is read outside the subquery that defines it")
        }
        if let known = scopes[index].aliasesByJoinKey[object.joinKey] { return known }
        // SQLite joins at most 64 tables in one SELECT ("too many FROM clause terms"): a longer
        // to-one path (`parent.parent.…`) runs in memory, which follows it link by link.
        guard scopes[index].joins.count < Self.maximumJoinsPerSelect else {
            throw .unsupported("key path", "it needs more than \(Self.maximumJoinsPerSelect) joins in one SELECT, more tables than SQLite joins")
        }
        guard let table = schema.table(for: object.entity) else {
            throw .unsupported("entity", "'\(object.entity.name ?? "?")' is not in this store")
        }
        let alias = makeAlias()
        scopes[index].joins.append("LEFT JOIN " + dialect.identifier(table.name) + " " + dialect.identifier(alias)
                                   + " ON " + dialect.column("Z_PK", of: alias) + " = " + object.key)
        scopes[index].aliasesByJoinKey[object.joinKey] = alias
        scopeIDByAlias[alias] = scopeID
        return alias
    }

    // MARK: - Key paths

    /// Resolves a dotted key path from an operand: attributes become columns, to-one
    /// relationships foreign keys (joined when read through), to-many relationships collections,
    /// and `@count`/`@sum`/… aggregate subqueries.
    /// - Throws: `SQLTranslationError` for what memory evaluates differently or SQL cannot read.
    package mutating func resolve(_ path: String, from base: SQLOperand) throws(SQLTranslationError) -> SQLOperand {
        let components = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !components.contains(where: \.isEmpty) else { throw .unsupported("key path", "'\(path)' is malformed") }
        return try resolve(components[...], from: base, path: path)
    }

    /// A key path on a dictionary result row (see `resultColumns`).
    package mutating func resolveResultKey(_ path: String) throws(SQLTranslationError) -> SQLOperand {
        let components = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard let first = components.first, let column = resultColumns?[first] else { return .constant(nil) }
        return try resolve(components.dropFirst(), from: column, path: path)
    }

    private mutating func resolve(_ components: ArraySlice<String>, from base: SQLOperand, path: String) throws(SQLTranslationError) -> SQLOperand {
        var current = base
        var index = components.startIndex
        while index < components.endIndex {
            let component = components[index]
            switch current {
            case .object(let object):
                if component == "self" || component == "objectID" { break }
                if component.hasPrefix("@") {
                    throw .unsupported("key path", "'\(component)' applies to a collection, not to an object, in '\(path)'")
                }
                guard let property = object.entity.propertiesByName[component] else {
                    throw .unsupported("key path", "'\(component)' in '\(path)' is not a property of entity '\(object.entity.name ?? "?")'")
                }
                if let relationship = property as? NSRelationshipDescription, relationship.isToMany {
                    let collection = try self.collection(relationship, owner: object)
                    return try resolve(components[(index + 1)...], in: collection, path: path)
                }
                if let composite = property as? NSCompositeAttributeDescription {
                    let element = try elementValue(of: composite, components[(index + 1)...], of: object, path: path)
                    current = element.value
                    index = element.next
                    continue
                }
                current = try value(of: property, of: object, path: path)
            case .scalar(let scalar):
                if scalar.kind == .string && component != "length" {
                    return .constant(nil)  // a string has no other key in memory
                }
                guard component == "length", scalar.kind == .string else {
                    throw .unsupported("key path", "'\(component)' of a \(scalar.kind) value in '\(path)'")
                }
                current = .scalar(SQLScalar(dialect.call(.utf16Length, [scalar.sql]), kind: .number(isInteger: true), isNullable: scalar.isNullable))
            case .constant(let value):
                let rest = components[index...].joined(separator: ".")
                return .constant(KeyValueAccess.value(forKeyPath: rest, of: value))
            case .collection, .list:
                throw .unsupported("key path", "'\(path)' reads '\(component)' through a collection")
            }
            index += 1
        }
        return current
    }

    /// The value of an attribute or to-one relationship of an object.
    private mutating func value(of property: NSPropertyDescription, of object: SQLObjectReference, path: String) throws(SQLTranslationError) -> SQLOperand {
        guard property.isStored, !property.isTransient else {
            throw .unsupported("key path", "'\(property.name)' in '\(path)' is transient; only memory has its value")
        }
        let alias = try rowAlias(of: object)
        guard let table = schema.table(for: object.entity), let column = table.valueColumn(for: property) else {
            throw .unsupported("key path", "'\(property.name)' of entity '\(object.entity.name ?? "?")' has no column")
        }
        let sql = dialect.column(column.name, of: alias)
        if let attribute = property as? NSAttributeDescription {
            guard let kind = SQLValueKind(attributeType: attribute.attributeType) else {
                throw .unsupported("key path", "'\(property.name)' is a \(attribute.attributeType.xmlName) attribute; memory compares its decoded value")
            }
            if attribute.attributeType == .floatAttributeType {
                // Memory reads a float attribute as a Float, whatever double the column holds.
                return .scalar(SQLScalar(dialect.call(.float, [sql]), kind: kind, attribute: attribute))
            }
            return .scalar(SQLScalar(sql, kind: kind, attribute: attribute))
        }
        guard let relationship = property as? NSRelationshipDescription, let destination = relationship.destinationEntity else {
            throw .unsupported("key path", "'\(property.name)' in '\(path)' is neither an attribute nor a relationship")
        }
        return .object(SQLObjectReference(key: sql, entity: destination, alias: nil, joinKey: alias + "." + property.name,
                                          ownerAlias: alias, isNullable: true))
    }

    /// The value of a composite's element named by the components after the composite
    /// (`author.person`, or `address.geo.lat` through a nested composite): its column.
    /// - Returns: the value and the index of the first component after the element.
    private mutating func elementValue(of composite: NSCompositeAttributeDescription, _ rest: ArraySlice<String>,
                                       of object: SQLObjectReference, path: String) throws(SQLTranslationError) -> (value: SQLOperand, next: Int) {
        var level = composite
        var elementPath: [String] = []
        var next = rest.startIndex
        while next < rest.endIndex {
            // A key that names no element reads nil, as a dictionary lookup does in memory.
            guard let element = level.element(named: rest[next]) else { return (.constant(nil), rest.endIndex) }
            elementPath.append(element.name)
            next += 1
            guard let nested = element as? NSCompositeAttributeDescription else {
                guard !composite.isTransient else {
                    throw .unsupported("key path", "'\(composite.name)' in '\(path)' is transient; only memory has its value")
                }
                let alias = try rowAlias(of: object)
                guard let table = schema.table(for: object.entity), let column = table.elementColumn(for: composite, path: elementPath) else {
                    throw .unsupported("key path", "the element '\(elementPath.joined(separator: "."))' of '\(composite.name)' has no column")
                }
                guard let kind = SQLValueKind(attributeType: element.attributeType) else {
                    throw .unsupported("key path", "'\(path)' is a \(element.attributeType.xmlName) element; memory compares its decoded value")
                }
                let sql = dialect.column(column.name, of: alias)
                if element.attributeType == .floatAttributeType {
                    return (.scalar(SQLScalar(dialect.call(.float, [sql]), kind: kind, attribute: element)), next)
                }
                return (.scalar(SQLScalar(sql, kind: kind, attribute: element)), next)
            }
            level = nested
        }
        return (try wholeComposite(composite, of: object, path: path), next)
    }

    /// A composite read as a whole, for comparing it with nil: NULL exactly when memory's value
    /// is nil (an optional composite whose element columns are all NULL), 1 otherwise. Compared
    /// with anything but nil it means nothing; memory compares the dictionary.
    private mutating func wholeComposite(_ composite: NSCompositeAttributeDescription, of object: SQLObjectReference,
                                         path: String) throws(SQLTranslationError) -> SQLOperand {
        guard !composite.isTransient else {
            throw .unsupported("key path", "'\(composite.name)' in '\(path)' is transient; only memory has its value")
        }
        let alias = try rowAlias(of: object)
        guard let table = schema.table(for: object.entity) else {
            throw .unsupported("entity", "'\(object.entity.name ?? "?")' is not in this store")
        }
        let columns = (table.compositeColumnsByProperty[ObjectIdentifier(composite)] ?? []).filter { $0 >= 0 }
        guard composite.isOptional, !columns.isEmpty else {
            return .scalar(SQLScalar(SQLFragment("1"), kind: .number(isInteger: true), isNullable: false))
        }
        var allNull = SQLFragment("")
        for (offset, index) in columns.enumerated() {
            if offset > 0 { allNull = allNull + " AND " }
            allNull = allNull + dialect.column(table.columns[index].name, of: alias) + " IS NULL"
        }
        return .scalar(SQLScalar("CASE WHEN " + allNull + " THEN NULL ELSE 1 END", kind: .number(isInteger: true)))
    }

    // MARK: - Collections

    /// The rows of a to-many relationship of an object, as a correlated subquery.
    package mutating func collection(_ relationship: NSRelationshipDescription, owner: SQLObjectReference) throws(SQLTranslationError) -> SQLCollection {
        guard !relationship.isTransient, let destination = relationship.destinationEntity,
              let table = schema.table(for: destination) else {
            throw .unsupported("key path", "the to-many relationship '\(relationship.name)' has no table in this store")
        }
        let alias = makeAlias()
        let row = SQLObjectReference(key: dialect.column("Z_PK", of: alias), entity: destination, alias: alias,
                                     joinKey: alias, ownerAlias: alias, isNullable: false)
        var from = dialect.identifier(table.name) + " " + dialect.identifier(alias)
        var conditions: [SQLFragment] = []
        var order: [SQLFragment]?
        if let join = schema.joinTable(for: relationship) {
            let access = join.access(for: relationship)
            let joinAlias = makeAlias("j")
            from = dialect.identifier(join.name) + " " + dialect.identifier(joinAlias) + " JOIN " + from
                + " ON " + dialect.column("Z_PK", of: alias) + " = " + dialect.column(access.otherColumn, of: joinAlias)
            conditions.append(dialect.column(access.selfColumn, of: joinAlias) + " = " + owner.key)
            if relationship.isOrdered, let column = access.orderColumn {
                order = [dialect.column(column, of: joinAlias)]
            }
        } else if let fk = schema.keyColumn(of: relationship)?.column {
            // The inverse to-one's foreign key, or the owner column of a to-many without an inverse.
            conditions.append(dialect.column(fk.name, of: alias) + " = " + owner.key)
            if relationship.isOrdered, let inverse = relationship.inverseRelationship, let position = table.orderColumnByProperty[ObjectIdentifier(inverse)] {
                order = [dialect.column(table.columns[position].name, of: alias), dialect.column("Z_PK", of: alias)]
            }
        } else {
            throw .unsupported("key path", "the to-many relationship '\(relationship.name)' is stored neither in a foreign key nor in a join table")
        }
        if schema.needsEntityFilter(destination, includingSubentities: true) {
            let numbers = schema.entityNumbers(of: destination, includingSubentities: true).map { SQLValue.integer(Int64($0)) }
            conditions.append(dialect.column("Z_ENT", of: alias)
                              + (numbers.count == 1 ? " = " + dialect.parameter(numbers[0]) : " IN " + dialect.parameterList(numbers)))
        }
        if relationship.isOrdered && order == nil {
            throw .unsupported("key path", "the ordered relationship '\(relationship.name)' has no order column")
        }
        return SQLCollection(from: from, conditions: conditions, row: row, element: .rows,
                             nullableOwnerKey: owner.isNullable ? owner.key : nil, order: order,
                             isArray: relationship.isOrdered, ownerAlias: owner.alias ?? owner.ownerAlias)
    }

    /// A key path applied to a collection (such as `SUBQUERY(…).@count`).
    package mutating func resolve(_ path: String, in collection: SQLCollection) throws(SQLTranslationError) -> SQLOperand {
        let components = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !components.contains(where: \.isEmpty) else { throw .unsupported("key path", "'\(path)' is malformed") }
        return try resolve(components[...], in: collection, path: path)
    }

    /// The rest of a key path after a to-many relationship: a collection operator, a value
    /// read from each element, or another to-many relationship, which flattens the path into
    /// one collection (`pets.tags`: every tag of every pet, each once).
    private mutating func resolve(_ rest: ArraySlice<String>, in collection: SQLCollection, path: String) throws(SQLTranslationError) -> SQLOperand {
        guard let first = rest.first else { return .collection(collection) }
        if first.hasPrefix("@") {
            return try applyOperator(first, rest: rest.dropFirst(), to: collection, path: path)
        }
        if let step = try flattened(rest, from: collection, path: path) {
            return try resolve(step.rest, in: step.collection, path: path)
        }
        if let operatorIndex = rest.firstIndex(where: { $0.hasPrefix("@") }) {
            throw .unsupported("key path", "'\(rest[operatorIndex])' after a value path in '\(path)' works on distinct values in memory")
        }
        guard case .rows = collection.element else {
            throw .unsupported("key path", "'\(path)' reads a key of values, not of objects")
        }
        var result = collection
        let element = try elementValue(rest, of: collection, path: path)
        result.from = element.from
        switch element.value {
        case .scalar(let scalar): result.element = .value(scalar, dropsNil: !collection.isArray)
        case .object(let object): result.element = .value(object.scalar, dropsNil: !collection.isArray)
        default: throw .unsupported("key path", "'\(path)' reads a collection from each element")
        }
        return .collection(result)
    }

    /// When `rest` reaches another to-many relationship from the elements (through to-one
    /// relationships), the destinations of that relationship for all elements, as one set:
    /// `Z_PK IN (SELECT <destination key> FROM <elements>, <their destinations> WHERE …)`; and
    /// the key path after it. Nil when `rest` reaches no to-many relationship.
    private mutating func flattened(_ rest: ArraySlice<String>, from collection: SQLCollection, path: String) throws(SQLTranslationError) -> (collection: SQLCollection, rest: ArraySlice<String>)? {
        guard case .rows = collection.element else { return nil }
        var entity = collection.row.entity
        var index = rest.startIndex
        while index < rest.endIndex, let relationship = entity.propertiesByName[rest[index]] as? NSRelationshipDescription, !relationship.isToMany {
            guard let destination = relationship.destinationEntity else { return nil }
            entity = destination
            index += 1
        }
        guard index < rest.endIndex, let relationship = entity.propertiesByName[rest[index]] as? NSRelationshipDescription, relationship.isToMany else { return nil }
        guard !collection.isArray, !relationship.isOrdered else {
            throw .unsupported("key path", "'\(path)' crosses two to-many relationships and one is ordered; memory flattens it in order")
        }
        guard let table = schema.table(for: relationship.destinationEntity ?? entity) else {
            throw .unsupported("key path", "the to-many relationship '\(relationship.name)' has no table in this store")
        }
        // The relationship's rows for each element, read inside the elements' scope.
        pushScope(owning: [collection.row.ownerAlias])
        let destinations: SQLCollection
        do throws(SQLTranslationError) {
            guard case .object(let owner) = try resolve(rest[rest.startIndex..<index], from: .object(collection.row), path: path) else {
                throw SQLTranslationError.unsupported("key path", "'\(path)' does not reach objects before '\(relationship.name)'")
            }
            destinations = try self.collection(relationship, owner: owner)
        } catch {
            _ = popScope()
            throw error
        }
        var pairs = collection
        for join in popScope() { pairs.from.append(" " + join) }
        pairs.from.append(", " + destinations.from)
        pairs.conditions += destinations.conditions
        pairs.order = nil
        let alias = makeAlias()
        let row = SQLObjectReference(key: dialect.column("Z_PK", of: alias), entity: destinations.row.entity, alias: alias,
                                     joinKey: alias, ownerAlias: alias, isNullable: false)
        let flattened = SQLCollection(
            from: dialect.identifier(table.name) + " " + dialect.identifier(alias),
            conditions: [dialect.column("Z_PK", of: alias) + " IN (" + pairs.select(destinations.row.key) + ")"],
            row: row, element: .rows, nullableOwnerKey: collection.nullableOwnerKey, order: nil, isArray: false,
            ownerAlias: collection.ownerAlias)
        return (flattened, rest[(index + 1)...])
    }

    /// Reads a key path from each element of a collection inside the collection's own scope.
    private mutating func elementValue(_ rest: ArraySlice<String>, of collection: SQLCollection, path: String) throws(SQLTranslationError) -> (value: SQLOperand, from: SQLFragment) {
        pushScope(owning: [collection.row.ownerAlias])
        let value: SQLOperand
        do {
            value = try resolve(rest, from: .object(collection.row), path: path)
        } catch {
            _ = popScope()
            throw error
        }
        let joins = popScope()
        var from = collection.from
        for join in joins { from.append(" " + join) }
        return (value, from)
    }

    /// `@count`, `@sum.x`, `@avg.x`, `@min.x`, `@max.x`, `@distinctUnionOfObjects.x`, `@unionOfObjects.x`.
    private mutating func applyOperator(_ name: String, rest: ArraySlice<String>, to collection: SQLCollection, path: String) throws(SQLTranslationError) -> SQLOperand {
        guard case .rows = collection.element else {
            throw .unsupported("key path", "'\(name)' over values works on distinct values in memory ('\(path)')")
        }
        if name == "@count" && rest.isEmpty {
            return .scalar(aggregate(SQLFragment("COUNT(*)"), over: collection, kind: .number(isInteger: true), nullable: false))
        }
        guard !rest.isEmpty else { throw .unsupported("key path", "'\(name)' needs a key path after it in '\(path)'") }
        let element = try elementValue(rest, of: collection, path: path)
        var source = collection
        source.from = element.from
        guard let scalar = element.value.scalar, !(element.value.isObject) else {
            throw .unsupported("key path", "'\(name)' in '\(path)' applies to objects or collections, not values")
        }
        source.element = .value(scalar, dropsNil: true)
        switch name {
        case "@count":
            return .scalar(aggregate("COUNT(" + scalar.sql + ")", over: source, kind: .number(isInteger: true), nullable: false))
        case "@sum", "@avg":
            guard case .number = scalar.kind else {
                throw .unsupported("key path", "'\(name)' over the \(scalar.kind) values of '\(path)'")
            }
            guard !scalar.holdsDecimals else { throw .unsupported("key path", SQLScalar.decimalSumReason(name, path)) }
            return .scalar(name == "@sum"
                ? aggregate(dialect.total(scalar.sql), over: source, kind: .number(isInteger: false), nullable: false)
                : aggregate("AVG(" + scalar.sql + ")", over: source, kind: .number(isInteger: false), nullable: true))
        case "@min", "@max":
            let function = name == "@min" ? "MIN(" : "MAX("
            return .scalar(aggregate(function + dialect.collatedIfText(scalar) + ")", over: source, kind: scalar.kind, nullable: true))
        case "@distinctUnionOfObjects", "@unionOfObjects":
            return .collection(source)
        default:
            throw .unsupported("key path", "the collection operator '\(name)' in '\(path)'")
        }
    }

    /// `(SELECT <function> FROM …)`, NULL when the collection's owner is missing (as in memory).
    package func aggregate(_ function: SQLFragment, over collection: SQLCollection, kind: SQLValueKind, nullable: Bool) -> SQLScalar {
        let subquery = "(" + collection.select(function) + ")"
        guard let owner = collection.nullableOwnerKey else { return SQLScalar(subquery, kind: kind, isNullable: nullable) }
        return SQLScalar("CASE WHEN " + owner + " IS NULL THEN NULL ELSE " + subquery + " END", kind: kind, isNullable: true)
    }
}

extension SQLOperand {
    fileprivate var isObject: Bool {
        if case .object = self { return true }
        return false
    }
}
