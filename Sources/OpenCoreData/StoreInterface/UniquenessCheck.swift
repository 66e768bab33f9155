import Foundation

/// The uniqueness-constraint check of stores that hold no index to enforce constraints (the
/// in-memory store, and custom stores, checked by the coordinator): the rows a save writes are
/// compared with each other and with the rows the store holds, before anything is written.
package enum UniquenessCheck {
    /// The violations of a save; `storedRows` gives the rows the store holds of an entity and its subentities.
    package static func violations(_ request: StoreSaveRequest,
                           storedRows: (NSEntityDescription) throws -> [RowSnapshot]) rethrows -> [StoreConstraintViolation] {
        let written = request.inserted + request.updated.map(\.snapshot)
        let deletedIDs = Set(request.deleted.map(\.objectID))
        let writtenIDs = Set(written.map(\.objectID))
        var violations: [StoreConstraintViolation] = []
        var checked = Set<String>()
        for row in written {
            let entity = row.objectID.entity
            for constraint in entity.effectiveUniquenessConstraints {
                let owner = entity.constraintOwner(of: constraint)
                guard checked.insert("\(ObjectIdentifier(owner).hashValue):\(constraint)").inserted else { continue }
                let indices = constraint.compactMap { owner.layout.indexByName[$0] }
                guard indices.count == constraint.count else { continue }
                func key(_ values: StoreValues) -> [StoreValue]? {
                    let key = indices.map { $0 < values.count ? values[$0] : .null }
                    return key.contains(where: \.isNull) ? nil : key
                }
                var groups: [[StoreValue]: [NSManagedObjectID]] = [:]
                for candidate in written where candidate.objectID.entity.isKindOf(entity: owner) {
                    if let key = key(candidate.values) { groups[key, default: []].append(candidate.objectID) }
                }
                var stored: [[StoreValue]: RowSnapshot] = [:]
                for existing in try storedRows(owner) where !deletedIDs.contains(existing.objectID) && !writtenIDs.contains(existing.objectID) {
                    if let key = key(existing.values) { stored[key] = existing }
                }
                for (key, ids) in groups.sorted(by: { "\($0.key)" < "\($1.key)" }) {
                    if let databaseRow = stored[key] {
                        violations.append(StoreConstraintViolation(constraint: constraint, conflictingObjectIDs: ids, databaseSnapshot: databaseRow))
                    } else if ids.count > 1 {
                        violations.append(StoreConstraintViolation(constraint: constraint, conflictingObjectIDs: ids, databaseSnapshot: nil))
                    }
                }
            }
        }
        return violations
    }
}
