import Foundation
import Synchronization

/// Finds `NSEntityMigrationPolicy` subclasses by the class name a mapping model records.
///
/// Apple's Core Data asks the Objective-C runtime. Here the name is tried as written through
/// the Swift runtime (`Module.Class`), then the bare class name among classes registered with
/// `NSEntityMigrationPolicy.register()`, then the bare name in every module whose managed-object
/// classes the process has used.
package final class MigrationPolicyRegistry: Sendable {
    package static let shared = MigrationPolicyRegistry()

    private struct State: @unchecked Sendable {
        // @unchecked: metatypes, only touched under the lock.
        var byName: [String: NSEntityMigrationPolicy.Type] = [:]
    }
    private let state = Mutex(State())

    func register(_ type: NSEntityMigrationPolicy.Type) {
        let full = String(reflecting: type)
        let bare = full.split(separator: ".").last.map(String.init) ?? full
        state.withLock { state in
            state.byName[full] = type
            state.byName[bare] = type
        }
    }

    /// The policy class named `name`; nil when none is found.
    package func policyClass(named rawName: String) -> NSEntityMigrationPolicy.Type? {
        var name = rawName.trimmingCharacters(in: .whitespaces)
        if name.hasPrefix(".") { name.removeFirst() }
        guard !name.isEmpty else { return nil }
        if name == "NSEntityMigrationPolicy" { return NSEntityMigrationPolicy.self }
        if let type = state.withLock({ $0.byName[name] }) { return type }
        if name.contains("."), let type = _typeByName(name) as? NSEntityMigrationPolicy.Type { return type }
        let bare = name.split(separator: ".").last.map(String.init) ?? name
        if let type = state.withLock({ $0.byName[bare] }) { return type }
        for module in ClassRegistry.shared.knownModules() {
            if let type = _typeByName("\(module).\(bare)") as? NSEntityMigrationPolicy.Type { return type }
        }
        return nil
    }
}
