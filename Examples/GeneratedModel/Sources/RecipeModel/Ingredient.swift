import OpenCoreData

/// Ingredient's Codegen is "Category/Extension": the class is written by hand and the build
/// plugin adds its properties in an extension.
public class Ingredient: NSManagedObject {
    /// The name, capitalized for display.
    public var displayName: String { name?.capitalized ?? "" }
}

/// Note's Codegen is "Manual/None": nothing is generated for it.
public class Note: NSManagedObject {
    @Managed public var text: String?
}
