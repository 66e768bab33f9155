import Foundation
import OpenCoreData

public class Tag: NSManagedObject {}

extension Tag {
    @nonobjc public class func fetchRequest() -> NSFetchRequest<Tag> {
        return NSFetchRequest<Tag>(entityName: "Tag")
    }

    @Managed public var name: String?
    @Managed public var items: NSSet?
}

public class Folder: NSManagedObject {}

extension Folder {
    @nonobjc public class func fetchRequest() -> NSFetchRequest<Folder> {
        return NSFetchRequest<Folder>(entityName: "Folder")
    }

    @Managed public var name: String?
    @Managed public var items: NSOrderedSet?

    public var itemList: [Item] {
        (items ?? []).array.compactMap { $0 as? Item }
    }
}
