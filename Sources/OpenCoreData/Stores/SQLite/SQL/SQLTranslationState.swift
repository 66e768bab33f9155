import Foundation

/// The state of translating one fetch request to SQL: the key paths resolved so far and the
/// joins they need.
///
/// Sort descriptors use it now; the predicate lowering (a visitor over predicate nodes, one
/// method per node, each taking this state `inout`) will resolve its key paths through it too.
package struct SQLTranslationState {
    package let schema: SQLiteSchema
    /// The fetched entity; its table is aliased `t0`.
    package let entity: NSEntityDescription
    /// LEFT JOINs to to-one destinations, in the order they were needed.
    package private(set) var joins: [SQLFragment] = []
    private var aliasesByPath: [String: (alias: String, entity: NSEntityDescription)] = [:]

    package init(schema: SQLiteSchema, entity: NSEntityDescription) {
        self.schema = schema
        self.entity = entity
    }

    /// The alias of the fetched entity's table.
    package static let rootAlias = "t0"

    /// The column of an attribute key path such as `title` or `location.placeName`, joining the
    /// to-one relationships on the way.
    /// - Throws: `SQLTranslationError` when a component is unknown, to-many, transient or not stored in a column.
    package mutating func attributeColumn(forKeyPath keyPath: String) throws -> (column: SQLFragment, attribute: NSAttributeDescription) {
        let components = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !components.isEmpty, !components.contains(where: \.isEmpty) else {
            throw SQLTranslationError("The key path '\(keyPath)' is empty or malformed.")
        }
        var alias = Self.rootAlias
        var current = entity
        var path = ""
        for (offset, component) in components.enumerated() {
            guard let property = current.propertiesByName[component], property.isStored else {
                throw SQLTranslationError("'\(component)' in key path '\(keyPath)' is not a stored property of entity '\(current.name ?? "?")'.")
            }
            guard let table = schema.table(for: current), let column = table.valueColumn(for: property) else {
                throw SQLTranslationError("'\(component)' of entity '\(current.name ?? "?")' has no column.")
            }
            if offset == components.count - 1 {
                guard let attribute = property as? NSAttributeDescription else {
                    throw SQLTranslationError("The key path '\(keyPath)' ends in a relationship, not an attribute.")
                }
                return (SQLFragment.column(column.name, of: alias), attribute)
            }
            guard let relationship = property as? NSRelationshipDescription, !relationship.isToMany,
                  let destination = relationship.destinationEntity, let destinationTable = schema.table(for: destination) else {
                throw SQLTranslationError("'\(component)' in key path '\(keyPath)' is not a to-one relationship.")
            }
            path += (path.isEmpty ? "" : ".") + component
            if let known = aliasesByPath[path] {
                alias = known.alias
            } else {
                let joined = "t\(aliasesByPath.count + 1)"
                joins.append("LEFT JOIN " + SQLFragment.identifier(destinationTable.name) + " " + SQLFragment.identifier(joined)
                             + " ON " + SQLFragment.column("Z_PK", of: joined) + " = " + SQLFragment.column(column.name, of: alias))
                aliasesByPath[path] = (joined, destination)
                alias = joined
            }
            current = destination
        }
        throw SQLTranslationError("The key path '\(keyPath)' could not be resolved.")
    }

    /// The ORDER BY term of a sort key.
    /// - Throws: `SQLTranslationError` when the key path cannot be sorted in SQL with the same
    ///   result as in memory (binary, transformable, UUID and URI values; custom comparators).
    package mutating func orderTerm(for sortKey: SQLSortKey) throws -> SQLFragment {
        let key = sortKey.keyPath
        let (column, attribute) = try attributeColumn(forKeyPath: key)
        switch attribute.attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType,
             .doubleAttributeType, .floatAttributeType, .decimalAttributeType, .stringAttributeType, .dateAttributeType:
            break
        default:
            throw SQLTranslationError("Sorting on '\(key)' (\(attribute.attributeType.xmlName)) is evaluated in memory.")
        }
        return column + (sortKey.ascending ? " ASC" : " DESC")
    }

    /// The WHERE condition of a predicate.
    /// - Throws: `SQLTranslationError` until the predicate engine lands; the context then
    ///   evaluates predicates in memory.
    package mutating func condition(for predicate: NSPredicate) throws -> SQLFragment {
        throw SQLTranslationError("Predicate '\(predicate)' is evaluated in memory (no SQL lowering yet).")
    }
}
