import Foundation

/// The join table of a many-to-many relationship, or of a to-many without an inverse that is
/// ordered or in a store an earlier OpenCoreData wrote (others use `SQLOwnerColumn`).
///
/// Naming (formats.md §3.4, verified on `Z_1PREVIOUSOWNERS`): the table is
/// `Z_<Z_ENT of owner's entity><OWNER RELATIONSHIP>`; the first column holds the owner side's
/// primary keys and is named after the relationship that points to that side (the inverse),
/// the second holds the destinations' keys and is named after the owner relationship. Which
/// side owns the table is a documented hypothesis: the relationship whose name sorts later.
///
/// `@unchecked Sendable`: built once from a frozen model, never mutated afterwards.
package final class SQLJoinTable: @unchecked Sendable {
    package let name: String
    /// The relationship whose sources are in `sourceColumn` and destinations in `destinationColumn`.
    package let owner: NSRelationshipDescription
    /// The owner's inverse (nil for a to-many without an inverse; `owner` itself when self-inverse).
    package let inverse: NSRelationshipDescription?
    /// Holds the primary keys of the owner relationship's source objects.
    package let sourceColumn: String
    /// Holds the primary keys of the owner relationship's destination objects.
    package let destinationColumn: String
    /// Orders the owner relationship's destinations (when it is ordered).
    package let destinationOrderColumn: String?
    /// Orders the inverse relationship's destinations (when it is ordered).
    package let sourceOrderColumn: String?

    init(owner: NSRelationshipDescription, entityNumber: (NSEntityDescription) -> Int) {
        let source = owner.entity!
        let destination = owner.destinationEntity ?? source
        self.owner = owner
        let inverse = owner.inverseRelationship
        self.inverse = inverse
        let ownerUpper = owner.name.uppercased()
        self.name = "Z_\(entityNumber(source))" + ownerUpper
        let sourceName = "Z_\(entityNumber(source))" + (inverse?.name ?? owner.name).uppercased()
        var destinationName = "Z_\(entityNumber(destination))" + ownerUpper
        if destinationName == sourceName { destinationName += "1" }
        self.sourceColumn = sourceName
        self.destinationColumn = destinationName
        self.destinationOrderColumn = owner.isOrdered ? "Z_FOK_" + destinationName.dropFirst(2) : nil
        if let inverse, inverse !== owner, inverse.isOrdered {
            self.sourceOrderColumn = "Z_FOK_" + sourceName.dropFirst(2)
        } else {
            self.sourceOrderColumn = nil
        }
    }

    /// Whether the relationship is its own inverse (rows are kept in both orientations).
    package var isSelfInverse: Bool { inverse === owner }

    /// How one side of the relationship reads the table.
    package struct Access {
        /// The column holding the key of the object whose relationship is read.
        package let selfColumn: String
        /// The column holding the destinations' keys.
        package let otherColumn: String
        /// The column ordering the destinations, for an ordered relationship.
        package let orderColumn: String?
        /// Whether `relationship` is the owner (pairs are written as (self, other)).
        package let isOwner: Bool
    }

    /// The columns one of the two relationships uses.
    package func access(for relationship: NSRelationshipDescription) -> Access {
        if relationship === owner {
            return Access(selfColumn: sourceColumn, otherColumn: destinationColumn, orderColumn: destinationOrderColumn, isOwner: true)
        }
        return Access(selfColumn: destinationColumn, otherColumn: sourceColumn, orderColumn: sourceOrderColumn, isOwner: false)
    }

    /// Whether a to-many relationship is stored in a join table, and if so which of the pair owns it.
    static func owner(of relationship: NSRelationshipDescription, entityNumber: (NSEntityDescription) -> Int) -> NSRelationshipDescription? {
        guard relationship.isToMany, !relationship.isTransient else { return nil }
        guard let inverse = relationship.inverseRelationship else { return relationship }
        guard inverse.isToMany else { return nil }
        if inverse === relationship { return relationship }
        let mine = relationship.name, theirs = inverse.name
        if mine != theirs {
            return mine.utf8.lexicographicallyPrecedes(theirs.utf8) ? inverse : relationship
        }
        // Same names on both sides: the entity with the lower Z_ENT owns (our choice; see StoreFormat.md).
        return entityNumber(relationship.entity) <= entityNumber(inverse.entity) ? relationship : inverse
    }
}
