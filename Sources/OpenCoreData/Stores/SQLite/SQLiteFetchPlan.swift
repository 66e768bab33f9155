import Foundation

/// A fetch the SQLite store translated once (`SQLiteStore.planFetch`): the statement for its
/// purpose, with its bindings, and the decoder of its rows.
struct SQLiteFetchPlan: StoreFetchPlan {
    let request: StoreFetchRequest
    let purpose: StoreFetchPurpose
    /// The entity whose rows the statement reads (IDs of rows of unknown `Z_ENT` use it).
    let entity: NSEntityDescription
    /// The statement text and its bound values.
    let sql: SQLFragment
    /// The decoder of the selected columns, for `.snapshots` plans.
    let decoder: SQLiteRowDecoder?
}
