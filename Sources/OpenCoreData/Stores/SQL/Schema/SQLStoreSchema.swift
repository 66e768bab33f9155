import Foundation

/// How a model maps onto Apple's store layout: entity numbers, tables, columns and join tables.
///
/// The layout is the same in any SQL database, so the lowering, the query builder and the write
/// plans all read it from here; only reading and writing a particular database (SQLite's stored
/// numbers, DDL execution, metadata) stays with its store.
///
/// Built once per store from the frozen model. Entity numbers come from the store's
/// `Z_PRIMARYKEY` when the store exists (so a store whose numbering differs from ours still
/// reads correctly), otherwise from `NSEntityDescription.entityNumber`.
///
/// `@unchecked Sendable`: every field is a `let` computed from a frozen model.
package final class SQLStoreSchema: @unchecked Sendable {
    package let model: NSManagedObjectModel
    /// The entities the store holds (its configuration), roots first as Apple numbers them.
    package let entities: [NSEntityDescription]
    private let numbers: [ObjectIdentifier: Int]
    private let entitiesByNumber: [Int: NSEntityDescription]
    private let tablesByRoot: [ObjectIdentifier: SQLTable]
    private let joinTablesByRelationship: [ObjectIdentifier: SQLJoinTable]
    /// Every table, in entity order.
    package let tables: [SQLTable]
    /// Every join table, in entity order.
    package let joinTables: [SQLJoinTable]

    /// - Parameter storedNumbers: `Z_NAME → Z_ENT` read from an existing store's `Z_PRIMARYKEY`.
    package init(model: NSManagedObjectModel, configurationEntities: [NSEntityDescription]? = nil, storedNumbers: [String: Int] = [:]) {
        self.model = model
        let included = Set((configurationEntities ?? model.entities).map(ObjectIdentifier.init))
        let ordered = model.orderedEntities().filter { included.contains(ObjectIdentifier($0.rootEntity)) || included.contains(ObjectIdentifier($0)) }
        self.entities = ordered
        var numbers: [ObjectIdentifier: Int] = [:]
        var byNumber: [Int: NSEntityDescription] = [:]
        for entity in ordered {
            let number = entity.name.flatMap { storedNumbers[$0] } ?? entity.entityNumber
            numbers[ObjectIdentifier(entity)] = number
            byNumber[number] = entity
        }
        self.numbers = numbers
        self.entitiesByNumber = byNumber
        let number: (NSEntityDescription) -> Int = { numbers[ObjectIdentifier($0)] ?? $0.entityNumber }

        var tables: [SQLTable] = []
        var byRoot: [ObjectIdentifier: SQLTable] = [:]
        for root in ordered where root.superentity == nil {
            let table = SQLTable(root: root, entityNumber: number)
            tables.append(table)
            byRoot[ObjectIdentifier(root)] = table
        }
        self.tables = tables
        self.tablesByRoot = byRoot

        var joins: [SQLJoinTable] = []
        var byRelationship: [ObjectIdentifier: SQLJoinTable] = [:]
        for entity in ordered {
            for property in entity.ownProperties {
                guard let relationship = property as? NSRelationshipDescription,
                      let owner = SQLJoinTable.owner(of: relationship, entityNumber: number), owner === relationship else { continue }
                let join = SQLJoinTable(owner: relationship, entityNumber: number)
                joins.append(join)
                byRelationship[ObjectIdentifier(relationship)] = join
                if let inverse = relationship.inverseRelationship { byRelationship[ObjectIdentifier(inverse)] = join }
            }
        }
        self.joinTables = joins
        self.joinTablesByRelationship = byRelationship
    }

    // MARK: - Lookups

    /// The `Z_ENT` of an entity in this store.
    package func entityNumber(of entity: NSEntityDescription) -> Int {
        numbers[ObjectIdentifier(entity)] ?? entity.entityNumber
    }

    /// The entity with a `Z_ENT`, or nil for an unknown number.
    package func entity(number: Int) -> NSEntityDescription? {
        entitiesByNumber[number]
    }

    /// The table that holds an entity's rows.
    package func table(for entity: NSEntityDescription) -> SQLTable? {
        tablesByRoot[ObjectIdentifier(entity.rootEntity)]
    }

    /// The join table of a to-many relationship, if it is stored in one.
    package func joinTable(for relationship: NSRelationshipDescription) -> SQLJoinTable? {
        joinTablesByRelationship[ObjectIdentifier(relationship)]
    }

    /// The `Z_ENT` values of an entity, and of its subentities when they are included.
    package func entityNumbers(of entity: NSEntityDescription, includingSubentities: Bool) -> [Int] {
        (includingSubentities ? entity.selfAndDescendants : [entity]).map(entityNumber(of:))
    }

    /// Whether a request for these entities must filter on `Z_ENT` (the table hosts others too).
    package func needsEntityFilter(_ entity: NSEntityDescription, includingSubentities: Bool) -> Bool {
        guard let table = table(for: entity) else { return false }
        let requested = includingSubentities ? entity.selfAndDescendants.count : 1
        return requested < table.entities.count
    }
}
