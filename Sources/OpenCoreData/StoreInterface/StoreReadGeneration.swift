import Foundation
import Synchronization

/// One query generation: a read snapshot of each store of a coordinator, taken together, that
/// the contexts pinned to it read from (`NSManagedObjectContext.setQueryGenerationFrom(_:)`).
///
/// Contexts hold their generation strongly; tokens name it by `identifier` only. When the last
/// context lets go, the snapshots (for SQLite, held WAL read transactions) are released and
/// the identifier no longer resolves (`live(_:)` gives nil).
///
/// The store seam has no context parameter, so a context routes its reads here with the task
/// local `current`, bound around its calls to the coordinator; a store looks up its own
/// snapshot in it (`snapshot(for:)`) and reads from that instead of the live database.
package final class StoreReadGeneration: Sendable {
    /// The name tokens use for this generation.
    package let identifier: UUID
    /// The coordinator whose stores the snapshots were taken of.
    package let coordinator: ObjectIdentifier
    /// Each store's snapshot, by the identity of its backend.
    private let snapshots: [ObjectIdentifier: any Sendable]

    /// The generation the store reads of the current call are pinned to, or nil for live reads.
    @TaskLocal package static var current: StoreReadGeneration?

    /// The generations some context still holds, by identifier (weakly).
    private static let registry = Mutex<[UUID: WeakGeneration]>([:])

    private struct WeakGeneration: Sendable {
        weak var generation: StoreReadGeneration?
    }

    package init(coordinator: ObjectIdentifier, snapshots: [ObjectIdentifier: any Sendable]) {
        self.identifier = UUID()
        self.coordinator = coordinator
        self.snapshots = snapshots
        let weak = WeakGeneration(generation: self)
        Self.registry.withLock { $0[identifier] = weak }
    }

    deinit {
        let identifier = identifier
        Self.registry.withLock { $0[identifier] = nil }
    }

    /// The snapshot taken of a store (identified by its backend), or nil when it has none (a
    /// store added after the generation began: it is read live).
    package func snapshot(for backend: AnyObject) -> (any Sendable)? {
        snapshots[ObjectIdentifier(backend)]
    }

    /// The generation with this identifier while some context still holds it.
    package static func live(_ identifier: UUID) -> StoreReadGeneration? {
        registry.withLock { $0[identifier]?.generation }
    }
}
