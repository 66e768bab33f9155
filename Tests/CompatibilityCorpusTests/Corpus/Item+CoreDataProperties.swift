import Foundation
import OpenCoreData

extension Item {
    @nonobjc public class func fetchRequest() -> NSFetchRequest<Item> {
        return NSFetchRequest<Item>(entityName: "Item")
    }

    @Managed public var timestamp: Date?
    @Managed public var title: String?
    @Managed public var createdAt: Date?
    @Managed public var updatedAt: Date?
    @Managed public var priority: Int16
    @Managed public var statusRaw: String?
    @Managed public var uuid: UUID?
    @Managed public var tags: NSSet?
    @Managed public var folder: Folder?
}

extension Item: Identifiable {}

extension Item {
    /// The tags as a Swift array, as SwiftUI list code usually wraps them.
    public var tagArray: [Tag] {
        let set = tags as? Set<Tag> ?? []
        return set.sorted { ($0.name ?? "") < ($1.name ?? "") }
    }

    /// A collection literal standing in for a missing to-many value.
    public var tagCount: Int {
        (tags ?? []).count
    }
}
