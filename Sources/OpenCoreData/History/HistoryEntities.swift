import Foundation

/// The entities that describe history transactions and changes, for fetch requests on them
/// (`NSPersistentHistoryTransaction.fetchRequest`, `NSPersistentHistoryChange.fetchRequest`).
///
/// They belong to a model of their own, frozen once built; no store holds their rows as
/// objects: a history request reads Apple's history tables.
package enum HistoryEntities {
    private static let model: NSManagedObjectModel = {
        func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.isOptional = true
            return attribute
        }
        let transaction = NSEntityDescription()
        transaction.name = "NSPersistentHistoryTransaction"
        transaction.properties = [
            attribute("author", .stringAttributeType), attribute("bundleID", .stringAttributeType),
            attribute("contextName", .stringAttributeType), attribute("processID", .stringAttributeType),
            attribute("timestamp", .dateAttributeType), attribute("transactionNumber", .integer64AttributeType),
            attribute("storeID", .stringAttributeType),
        ]
        let change = NSEntityDescription()
        change.name = "NSPersistentHistoryChange"
        change.properties = [
            attribute("changeID", .integer64AttributeType), attribute("changeType", .integer64AttributeType),
            attribute("changedEntity", .transformableAttributeType), attribute("changedObjectID", .objectIDAttributeType),
            attribute("tombstone", .transformableAttributeType),
        ]
        let model = NSManagedObjectModel()
        model.entities = [transaction, change]
        model.freeze()
        return model
    }()

    /// The entity of `NSPersistentHistoryTransaction`.
    package static var transaction: NSEntityDescription { model.entitiesByName["NSPersistentHistoryTransaction"]! }
    /// The entity of `NSPersistentHistoryChange`.
    package static var change: NSEntityDescription { model.entitiesByName["NSPersistentHistoryChange"]! }
}
