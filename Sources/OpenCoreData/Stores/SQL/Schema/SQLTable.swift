import Foundation

/// One column of an entity table.
package struct SQLColumn: Sendable {
    package enum Role: Sendable, Equatable {
        /// A stored attribute's value.
        case attribute(NSAttributeType)
        /// One element of a composite attribute (`property`): its `leaf`-th non-composite element
        /// (`NSCompositeAttributeDescription.leaves`), of the element's type.
        case compositeElement(NSAttributeType, leaf: Int)
        /// A to-one relationship's destination `Z_PK`.
        case foreignKey
        /// The destination's `Z_ENT`, for a to-one to an entity with subentities (`Z<n>_<REL>`).
        case entityType
        /// The position of the row in its parent's ordered to-many relationship (`Z_FOK_<REL>`).
        case orderKey
    }

    package let name: String
    package let type: SQLColumnType
    package let role: Role
    /// The property whose value the column holds (the to-one relationship for FK, type and order columns).
    package let property: NSPropertyDescription
}

/// The table of a root entity; its subentities' rows live in it too, told apart by `Z_ENT`.
///
/// `@unchecked Sendable`: built once from a frozen model, never mutated afterwards.
package final class SQLTable: @unchecked Sendable {
    /// `Z` + the root entity's name in upper case.
    package let name: String
    package let root: NSEntityDescription
    /// The root and its subentities, depth-first.
    package let entities: [NSEntityDescription]
    /// The columns after `Z_PK`, `Z_ENT`, `Z_OPT`, in Apple's order.
    package let columns: [SQLColumn]
    /// Column index by property, for attribute and foreign-key columns.
    package let valueColumnByProperty: [ObjectIdentifier: Int]
    /// `Z<n>_<REL>` column index by to-one relationship.
    package let entityTypeColumnByProperty: [ObjectIdentifier: Int]
    /// `Z_FOK_<REL>` column index by to-one relationship (whose inverse is ordered).
    package let orderColumnByProperty: [ObjectIdentifier: Int]
    /// The element columns of each composite attribute, in `leaves` order (a composite has no
    /// column of its own).
    package let compositeColumnsByProperty: [ObjectIdentifier: [Int]]

    /// Whether more than one entity keeps rows here (then `Z_ENT` is indexed and filtered on).
    package var hostsSeveralEntities: Bool { entities.count > 1 }

    init(root: NSEntityDescription, entityNumber: (NSEntityDescription) -> Int) {
        self.root = root
        self.name = "Z" + (root.name ?? "").uppercased()
        self.entities = root.selfAndDescendants

        // Apple's order: grouped by type; within a group the root's attributes, then its
        // to-one columns, then the subentities' properties (formats.md §3.2).
        struct Pending {
            var baseName: String; var type: SQLColumnType; var role: SQLColumn.Role; var property: NSPropertyDescription
            var rank: Int; var sequence: Int; var entityOffset: Int
        }
        var pending: [Pending] = []
        var sequence = 0
        for (entityOffset, entity) in entities.enumerated() {
            for property in entity.ownProperties where property.isStored {
                if let composite = property as? NSCompositeAttributeDescription {
                    // No column for the composite: one per element, named after the element
                    // alone (wave3-research §5: `author.person` → ZPERSON).
                    for (leafIndex, leaf) in composite.leaves.enumerated() {
                        let type = leaf.attribute.attributeType
                        pending.append(Pending(baseName: "Z" + leaf.attribute.name.uppercased(), type: SQLColumnType(attributeType: type),
                                               role: .compositeElement(type, leaf: leafIndex), property: composite,
                                               rank: entityOffset == 0 ? 0 : 2, sequence: sequence, entityOffset: entityOffset))
                        sequence += 1
                    }
                } else if let attribute = property as? NSAttributeDescription {
                    pending.append(Pending(baseName: "Z" + attribute.name.uppercased(), type: SQLColumnType(attributeType: attribute.attributeType),
                                           role: .attribute(attribute.attributeType), property: attribute,
                                           rank: entityOffset == 0 ? 0 : 2, sequence: sequence, entityOffset: entityOffset))
                    sequence += 1
                }
            }
            for property in entity.ownProperties where property.isStored {
                guard let relationship = property as? NSRelationshipDescription, !relationship.isToMany else { continue }
                let upper = relationship.name.uppercased()
                let rank = entityOffset == 0 ? 1 : 2
                pending.append(Pending(baseName: "Z" + upper, type: .integer, role: .foreignKey, property: relationship,
                                       rank: rank, sequence: sequence, entityOffset: entityOffset))
                sequence += 1
                if let destination = relationship.destinationEntity, !destination.subentities.isEmpty {
                    pending.append(Pending(baseName: "Z\(entityNumber(destination))_" + upper, type: .integer, role: .entityType,
                                           property: relationship, rank: rank, sequence: sequence, entityOffset: entityOffset))
                    sequence += 1
                }
                if let inverse = relationship.inverseRelationship, inverse.isToMany, inverse.isOrdered {
                    pending.append(Pending(baseName: "Z_FOK_" + upper, type: .integer, role: .orderKey, property: relationship,
                                           rank: rank, sequence: sequence, entityOffset: entityOffset))
                    sequence += 1
                }
            }
        }

        // Names equal after upper-casing get a numeric suffix (ZNAME, ZNAME1, …). Names are
        // given in property-name order, entity by entity (root first), each property's columns
        // in their own order: so the element `author.id` takes ZID and the attribute `id`,
        // whose name sorts after `author`, gets ZID1, as in the store of wave3-research §5.
        let naming = pending.indices.sorted { a, b in
            let (x, y) = (pending[a], pending[b])
            if x.entityOffset != y.entityOffset { return x.entityOffset < y.entityOffset }
            if x.property !== y.property { return x.property.name.utf8.lexicographicallyPrecedes(y.property.name.utf8) }
            return x.sequence < y.sequence
        }
        var used: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]
        var names = [String](repeating: "", count: pending.count)
        for index in naming {
            let baseName = pending[index].baseName
            var name = baseName
            var suffix = 1
            while used.contains(name) {
                name = baseName + String(suffix)
                suffix += 1
            }
            used.insert(name)
            names[index] = name
        }
        let order = pending.indices.sorted {
            (pending[$0].type.groupRank, pending[$0].rank, pending[$0].sequence) < (pending[$1].type.groupRank, pending[$1].rank, pending[$1].sequence)
        }

        var columns: [SQLColumn] = []
        var values: [ObjectIdentifier: Int] = [:], types: [ObjectIdentifier: Int] = [:], orders: [ObjectIdentifier: Int] = [:]
        var composites: [ObjectIdentifier: [Int]] = [:]
        for index in order {
            let item = pending[index]
            let key = ObjectIdentifier(item.property)
            switch item.role {
            case .attribute, .foreignKey: values[key] = columns.count
            case .compositeElement(_, let leaf):
                var list = composites[key] ?? []
                if list.count <= leaf { list += Array(repeating: -1, count: leaf + 1 - list.count) }
                list[leaf] = columns.count
                composites[key] = list
            case .entityType: types[key] = columns.count
            case .orderKey: orders[key] = columns.count
            }
            columns.append(SQLColumn(name: names[index], type: item.type, role: item.role, property: item.property))
        }
        self.columns = columns
        self.valueColumnByProperty = values
        self.entityTypeColumnByProperty = types
        self.orderColumnByProperty = orders
        self.compositeColumnsByProperty = composites
    }

    /// The column that holds a property's value (attribute or foreign key), if any.
    package func valueColumn(for property: NSPropertyDescription) -> SQLColumn? {
        valueColumnByProperty[ObjectIdentifier(property)].map { columns[$0] }
    }

    /// The column of a composite's element at `path` (element names, nested ones included), if any.
    package func elementColumn(for composite: NSCompositeAttributeDescription, path: [String]) -> SQLColumn? {
        guard let leaf = composite.leaves.firstIndex(where: { $0.path == path }),
              let indices = compositeColumnsByProperty[ObjectIdentifier(composite)], leaf < indices.count, indices[leaf] >= 0 else { return nil }
        return columns[indices[leaf]]
    }

    /// The columns an entity's rows use: its own and its ancestors' properties.
    ///
    /// - Complexity: O(columns + inheritance depth): the ancestors are collected once, where
    ///   asking `isKindOf` per column walked the chain per column (cubic over a deep chain's entities).
    package func columnIndices(for entity: NSEntityDescription) -> [Int] {
        columnIndices(forAnyOf: [entity], includingDescendants: false)
    }

    /// The columns the rows of any of `entities` use (and of their subentities' rows when
    /// `includingDescendants`), in table order.
    ///
    /// - Complexity: O(columns + the entities' ancestors and descendants).
    package func columnIndices(forAnyOf entities: [NSEntityDescription], includingDescendants: Bool) -> [Int] {
        var owners = Set<ObjectIdentifier>()
        for entity in entities {
            var current: NSEntityDescription? = entity
            // Stop at an ancestor already collected: its own ancestors are in the set.
            while let ancestor = current, owners.insert(ObjectIdentifier(ancestor)).inserted {
                WorkCounter.count()
                current = ancestor.superentity
            }
            if includingDescendants {
                for descendant in entity.selfAndDescendants {
                    WorkCounter.count()
                    owners.insert(ObjectIdentifier(descendant))
                }
            }
        }
        return columns.indices.filter { index in
            WorkCounter.count()
            return columns[index].property.entity.map { owners.contains(ObjectIdentifier($0)) } ?? false
        }
    }
}
