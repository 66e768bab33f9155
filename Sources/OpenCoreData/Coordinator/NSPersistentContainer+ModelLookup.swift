import Foundation

extension NSPersistentContainer {
    /// Creates a container whose model is the one named `name` (`<name>.momd`, or on Linux
    /// usually `<name>.xcdatamodeld`): from the resource bundle of the module that declares a
    /// container subclass or of the executable's own target, else from the main bundle, the
    /// other SwiftPM resource bundles linked into the executable, or any loaded bundle — never
    /// from a bundle of another executable or test target in the same build folder. Several
    /// different models of that name there, and none preferred, is an error listing them.
    ///
    /// Apple's initializer can't fail; when no model is found, or it is malformed, this one stops
    /// with a message that lists every place it looked. Use ``init(loadingModelNamed:in:)`` to get
    /// that as an error instead.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nspersistentcontainer/init(name:)>.
    public convenience init(name: String) {
        let model: NSManagedObjectModel
        do {
            // A subclass's model is looked for in its own module's resources first, as Apple's
            // lookup uses the subclass's bundle.
            let module = String(reflecting: Self.self).split(separator: ".").first.map(String.init)
            model = try ModelLocator.loadModel(named: name, bundles: nil, preferredModule: module == "OpenCoreData" ? nil : module)
        } catch {
            CoreDataError.programmerError("NSPersistentContainer(name: \"\(name)\"): \(error.localizedDescription)")
        }
        self.init(name: name, managedObjectModel: model)
    }

    /// Creates a container whose model is the one named `name`, throwing when it can't be found or loaded.
    ///
    /// ```swift
    /// let container = try NSPersistentContainer(loadingModelNamed: "Todo", in: [Bundle.module])
    /// ```
    ///
    /// - Parameters:
    ///   - name: The model's name, also used as the store's file name.
    ///   - bundles: Where to look; nil searches the main bundle, SwiftPM resource bundles and all loaded bundles.
    /// - Throws: `NSFileReadNoSuchFileError` (260) listing every path tried, or the model's loading error.
    public convenience init(loadingModelNamed name: String, in bundles: [Bundle]? = nil) throws {
        let model = try ModelLocator.loadModel(named: name, bundles: bundles)
        self.init(name: name, managedObjectModel: model)
    }
}
