import Foundation
import OpenCoreData

/// Walks every object of a store in constant memory: entity by entity, a page of primary keys
/// at a time (keyset paging on the raw file), each page loaded with one query as batched faults
/// and the context reset after it.
struct StoreWalker {
    /// One entity to walk: its table, `Z_ENT` and number of rows of its own.
    struct Step {
        var entity: NSEntityDescription
        var number: Int
        var table: String
        var count: Int
        var name: String { entity.name ?? "" }
    }

    let session: StoreSession
    let file: StoreFile
    let steps: [Step]
    var batchSize = 500

    /// The entities the model and the file share, with their row counts. Entity numbers and
    /// tables come from the library's own schema mapping (by `Z_PRIMARYKEY` name, so renamed
    /// entities resolve as the store reads them).
    init(session: StoreSession, batchSize: Int = 500) throws {
        guard let file = session.file else { throw ToolError("internal error: walking a store needs a read-only session") }
        self.session = session
        self.file = file
        self.batchSize = max(1, batchSize)
        let tables = try file.tableNames()
        let schema = StoreFile.schema(for: session.model, rows: try file.entityRows(), tables: tables)
        var steps: [Step] = []
        for entity in schema.entities where !entity.isAbstract {
            guard let table = schema.table(for: entity)?.name, tables.contains(table) else { continue }
            let number = schema.entityNumber(of: entity)
            let count = try file.rowCount(table: table, entityNumber: number)
            if count > 0 { steps.append(Step(entity: entity, number: number, table: table, count: count)) }
        }
        self.steps = steps.sorted { $0.name < $1.name }
    }

    /// Rows of all steps.
    var total: Int { steps.reduce(0) { $0 + $1.count } }

    /// Calls `body` with each page of objects of each step, on the context's queue; the context
    /// is reset after each page, so `body` must not keep the objects.
    ///
    /// - Throws: the store's error when a page's rows cannot be read (before `body` sees them),
    ///   or when a relationship `body` read could not be read (after it): a row that cannot be
    ///   read is never handed on as an object without values.
    func forEachPage(_ body: (Step, [NSManagedObject]) throws -> Void) throws {
        let context = session.context
        for step in steps {
            var lastKey: Int64 = 0
            while true {
                let keys = try file.primaryKeys(table: step.table, entityNumber: step.number, after: lastKey, limit: batchSize)
                guard let last = keys.last else { break }
                lastKey = last
                try context.performAndWait {
                    defer { context.reset() }
                    let ids = keys.map { NSManagedObjectID(entity: step.entity, primaryKey: $0, store: session.store) }
                    let objects = context.batchedFaults(for: ids)
                    // The first fires the page's one query; a page that cannot be read throws here.
                    do {
                        for object in objects { try object.fireFaultOrThrow() }
                    } catch {
                        throw session.readError(error)
                    }
                    try body(step, objects)
                    try session.throwReadFailure()
                }
            }
        }
    }
}
