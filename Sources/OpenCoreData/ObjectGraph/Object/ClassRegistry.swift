import Foundation
import Synchronization

/// Finds the Swift class of an entity without the Objective-C runtime.
///
/// Classes are learned when code uses them (`init(context:)`, `init(entity:insertInto:)`,
/// `NSFetchRequest<Todo>`, `Todo.entity()`), by module-qualified `managedObjectClassName` through
/// the Swift runtime, or by `NSManagedObjectModel.registerManagedObjectClasses(_:)`.
package final class ClassRegistry: Sendable {
    package static let shared = ClassRegistry()

    private struct State: @unchecked Sendable {
        // @unchecked: metatypes, only touched under the lock.
        var byClassName: [String: NSManagedObject.Type] = [:]
        var models: [WeakModel] = []
        /// Modules that registered classes came from, tried for bare class names.
        var modules: [String] = []
    }
    private struct WeakModel { weak var model: NSManagedObjectModel? }
    private let state = Mutex(State())

    package func register(_ type: NSManagedObject.Type, for entity: NSEntityDescription) {
        entity.registeredClass = type
        state.withLock { state in Self.noteNames(of: type, in: &state) }
    }

    private static func noteModule(of type: NSManagedObject.Type, in state: inout State) {
        let full = String(reflecting: type)
        guard let dot = full.firstIndex(of: ".") else { return }
        let module = String(full[..<dot])
        if !state.modules.contains(module) { state.modules.append(module) }
    }

    /// Registers a class for an entity unless it already is; cheap when it is (one lock, no strings).
    package func registerIfNeeded(_ type: NSManagedObject.Type, for entity: NSEntityDescription) {
        if registeredType(for: entity) == type { return }
        register(type, for: entity)
    }

    package func register(_ type: NSManagedObject.Type) {
        state.withLock { state in Self.noteNames(of: type, in: &state) }
    }

    /// Records a class under its bare and module-qualified names, and its module.
    private static func noteNames(of type: NSManagedObject.Type, in state: inout State) {
        noteModule(of: type, in: &state)
        state.byClassName[NSManagedObject.bareClassName(of: type)] = type
        state.byClassName[String(reflecting: type)] = type
    }

    /// The modules of the managed-object classes used so far, for finding other classes
    /// (migration policies) by bare name.
    package func knownModules() -> [String] {
        state.withLock { $0.modules }
    }

    package func register(model: NSManagedObjectModel) {
        state.withLock { state in
            state.models.removeAll { $0.model == nil }
            if !state.models.contains(where: { $0.model === model }) { state.models.append(WeakModel(model: model)) }
        }
    }

    /// The class that instances of an entity get.
    package func objectClass(for entity: NSEntityDescription) -> NSManagedObject.Type {
        if let type = registeredType(for: entity) { return type }
        let type = lookUp(className: entity.managedObjectClassName)
        if type != NSManagedObject.self { entity.registeredClass = type }
        return type
    }

    /// Kept on the entity itself: every object's init asks, so the answer costs one atomic load.
    private func registeredType(for entity: NSEntityDescription) -> NSManagedObject.Type? {
        entity.registeredClass
    }

    private func lookUp(className: String?) -> NSManagedObject.Type {
        guard var name = className, !name.isEmpty, name != "NSManagedObject" else { return NSManagedObject.self }
        if name.hasPrefix(".") { name.removeFirst() }
        if let type = state.withLock({ $0.byClassName[name] }) { return type }
        if name.contains("."), let type = _typeByName(name) as? NSManagedObject.Type { return type }
        let bare = name.split(separator: ".").last.map(String.init) ?? name
        if let type = state.withLock({ $0.byClassName[bare] }) { return type }
        for module in state.withLock({ $0.modules }) {
            if let type = _typeByName("\(module).\(bare)") as? NSManagedObject.Type { return type }
        }
        return NSManagedObject.self
    }

    /// The entity whose class is `type`, in one model.
    package func entity(for type: NSManagedObject.Type, in model: NSManagedObjectModel) -> NSEntityDescription? {
        // `Todo(context:)` lands here for every insert: answer from the registry before
        // spelling out class names (String(reflecting:) is the costly part).
        if let match = model.entities.first(where: { registeredType(for: $0) == type }) { return match }
        let bare = NSManagedObject.bareClassName(of: type)
        let full = String(reflecting: type)
        let matches = model.entities.filter { entity in
            guard var name = entity.managedObjectClassName, !name.isEmpty else { return false }
            if name.hasPrefix(".") { name.removeFirst() }
            return name == full || name == bare || name.split(separator: ".").last.map(String.init) == bare
        }
        if let match = matches.first { return match }
        // Xcode's default class name is the entity name.
        return model.entities.first { $0.name == bare && ($0.managedObjectClassName == nil || $0.managedObjectClassName == "NSManagedObject") }
    }

    /// The entity whose class is `type`, in any model a coordinator uses.
    package func entity(for type: NSManagedObject.Type) -> NSEntityDescription? {
        let models = state.withLock { $0.models.compactMap(\.model) }
        for model in models.reversed() {
            if let entity = entity(for: type, in: model) { return entity }
        }
        return nil
    }
}

extension NSManagedObject {
    static func bareClassName(of type: NSManagedObject.Type) -> String {
        let full = String(reflecting: type)
        return full.split(separator: ".").last.map(String.init) ?? full
    }
}

extension NSManagedObjectModel {
    /// Tells OpenCoreData which Swift classes back entities whose `managedObjectClassName` has no module.
    ///
    /// Only needed when objects are fetched before the class is used in any other way; see Deviations.md.
    public func registerManagedObjectClasses(_ classes: [NSManagedObject.Type]) {
        for type in classes {
            ClassRegistry.shared.register(type)
            if let entity = ClassRegistry.shared.entity(for: type, in: self) {
                ClassRegistry.shared.register(type, for: entity)
            }
        }
    }
}
