import Foundation
import GRDB

// MARK: - OwnerColumnChanges

/// The owner-column writes of one save (to-many relationships without an inverse, Apple's
/// `Z<n><REL>` on the destinations' table), collected over every saved row first so that all
/// releases run before any claim: moving an element from one owner to another in one save works
/// whichever owner the save lists first.
struct OwnerColumnChanges {
    struct Claim {
        let owned: SQLiteWritePlan.OwnedDestinations
        let owner: Int64
        let destination: Int64
    }

    private(set) var releases: [(owned: SQLiteWritePlan.OwnedDestinations, owner: Int64, destination: Int64)] = []
    private(set) var claims: [Claim] = []

    /// Compares the destinations an owner's relationship names now with those stored, and
    /// notes what to release and to claim. `isNew`: the owner has no stored destinations.
    mutating func add(_ owned: SQLiteWritePlan.OwnedDestinations, owner: Int64, destinations: [Int64], isNew: Bool, db: Database) throws {
        let existing: Set<Int64>
        if isNew {
            existing = []
        } else {
            Log.sql.debug("\(owned.selectOwnedSQL)")
            existing = Set(try Int64.fetchAll(db.cachedStatement(sql: owned.selectOwnedSQL), arguments: [owner]))
        }
        let wanted = Set(destinations)
        for removed in existing.subtracting(wanted).sorted() {
            releases.append((owned, owner, removed))
        }
        var claimed = Set<Int64>()
        for destination in destinations where !existing.contains(destination) && claimed.insert(destination).inserted {
            claims.append(Claim(owned: owned, owner: owner, destination: destination))
        }
    }
}

// MARK: - Writing

extension SQLiteStore {
    /// Writes a save's owner-column changes: releases, then claims.
    ///
    /// A destination has at most one owner in Apple's layout. A claim of a destination whose
    /// column names another owner that this save does not release it from (an element added to
    /// a second owner's relationship and still in the first's) fails the save with
    /// `NSManagedObjectValidationError` (1550) naming both owners, rather than moving it
    /// silently: the first owner's objects in memory would still list it, and lose it at the
    /// next refresh. A destination whose row is gone (deleted) is skipped, as a join-table pair
    /// naming it would be harmless.
    func writeOwnerColumns(_ changes: OwnerColumnChanges, db: Database, store: NSPersistentStore) throws {
        for release in changes.releases {
            try Self.execute(db, release.owned.releaseSQL, [release.destination, release.owner])
        }
        for claim in changes.claims {
            Log.sql.debug("\(claim.owned.selectOwnerSQL)")
            guard let row = try Row.fetchOne(db.cachedStatement(sql: claim.owned.selectOwnerSQL), arguments: [claim.destination]) else { continue }
            let current: Int64? = row[0]
            if current == claim.owner { continue }
            if let current {
                throw secondOwner(claim, current: current, destinationEntity: row[1], store: store)
            }
            try Self.execute(db, claim.owned.claimSQL, [claim.owner, claim.destination])
        }
    }

    /// The error of a destination claimed by a second owner.
    private func secondOwner(_ claim: OwnerColumnChanges.Claim, current: Int64, destinationEntity: Int64?, store: NSPersistentStore) -> NSError {
        let relationship = claim.owned.owner.relationship
        let source = relationship.entity
        let destination = destinationEntity.flatMap { schema.entity(number: Int($0)) } ?? relationship.destinationEntity
        let sourceName = source?.name ?? "?", destinationName = destination?.name ?? "?"
        var userInfo: [String: Any] = [NSValidationKeyErrorKey: relationship.name]
        if let source, let destination {
            let owner = NSManagedObjectID(entity: source, primaryKey: claim.owner, store: store)
            let element = NSManagedObjectID(entity: destination, primaryKey: claim.destination, store: store)
            userInfo[NSValidationObjectErrorKey] = owner
            userInfo[NSValidationValueErrorKey] = element
            userInfo[NSAffectedObjectsErrorKey] = [owner, NSManagedObjectID(entity: source, primaryKey: current, store: store), element]
        }
        return CoreDataError.make(NSManagedObjectValidationError,
                                  "\(destinationName) \(claim.destination) cannot be added to '\(relationship.name)' of \(sourceName) \(claim.owner): it is in '\(relationship.name)' of \(sourceName) \(current), and a to-many without an inverse gives each destination one owner (Apple's layout: \(claim.owned.owner.table.name).\(claim.owned.owner.name) holds one owner). Remove it from the other owner in the same save. Nothing was saved.",
                                  userInfo: userInfo)
    }
}
