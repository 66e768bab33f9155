import Foundation
import Synchronization

// MARK: - SQLPlanCache

/// A store's fetch plans by shape: translation runs once per shape, and later requests of the
/// shape bind their own constants into the cached statement (`SQLPlanTemplate`).
///
/// Thread-safe: contexts on several queues plan fetches on one store at once.
package final class SQLPlanCache: Sendable {
    /// The most templates kept; the cache empties when it is full (shapes are few in an app, so
    /// a full cache means requests whose constants are pinned, such as ever-new LIKE patterns).
    private static let capacity = 1024
    /// The most templates kept per shape (for the same shape with different pinned constants).
    private static let perShape = 8

    private struct State {
        var templates: [SQLPlanShape.Key: [SQLPlanTemplate]] = [:]
        var count = 0
    }

    private let state = Mutex(State())

    package init() {}

    /// The cached statement for a request of this shape, or nil when none serves it.
    package func statement(for shape: SQLPlanShape) -> SQLPlanTemplate.Statement? {
        let templates = state.withLock { $0.templates[shape.key] } ?? []
        for template in templates.reversed() {
            if let statement = template.statement(for: shape.constants) { return statement }
        }
        return nil
    }

    /// Keeps a template for its shape.
    package func insert(_ template: SQLPlanTemplate, for shape: SQLPlanShape) {
        let key = shape.key
        state.withLock { state in
            if state.count >= Self.capacity {
                state.templates.removeAll(keepingCapacity: true)
                state.count = 0
            }
            var templates = state.templates[key] ?? []
            if templates.count >= Self.perShape {
                templates.removeFirst()
                state.count -= 1
            }
            templates.append(template)
            state.templates[key] = templates
            state.count += 1
        }
    }

    /// The number of templates kept.
    package var count: Int { state.withLock { $0.count } }

    /// Forgets every template.
    package func removeAll() {
        state.withLock { $0 = State() }
    }
}
