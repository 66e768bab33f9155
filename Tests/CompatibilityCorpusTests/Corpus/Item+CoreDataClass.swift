// Written as Xcode's "Manual/None" codegen and Apple's documentation shape an entity class;
// the only change from Apple-platform code is `import OpenCoreData` and `@Managed`.
import OpenCoreData

public class Item: NSManagedObject {
    public enum Status: String {
        case open
        case done
    }

    // Apple implements `primitive<Key>` for every attribute; apps declare them to set values
    // without change notifications, typically in awakeFromInsert and willSave.
    @Managed private var primitiveCreatedAt: Date?
    @Managed private var primitiveUpdatedAt: Date?
    @Managed private var primitiveStatusRaw: String?

    public override func awakeFromInsert() {
        super.awakeFromInsert()
        primitiveCreatedAt = Date()
        setPrimitiveValue(UUID(), forKey: "uuid")
    }

    public override func willSave() {
        super.willSave()
        if !isDeleted, changedValues()["updatedAt"] == nil {
            primitiveUpdatedAt = Date()
        }
    }

    /// A custom accessor over a primitive, as in Apple's "Managed Object Accessor Methods".
    public var status: Status {
        get {
            willAccessValue(forKey: "statusRaw")
            defer { didAccessValue(forKey: "statusRaw") }
            return Status(rawValue: primitiveStatusRaw ?? "") ?? .open
        }
        set {
            willChangeValue(forKey: "statusRaw")
            primitiveStatusRaw = newValue.rawValue
            didChangeValue(forKey: "statusRaw")
        }
    }

    /// A factory in the style of many apps' model layers.
    @discardableResult
    public class func make(in context: NSManagedObjectContext, title: String) -> Self {
        let item = Self(context: context)
        item.title = title
        return item
    }
}
