import Foundation

/// A statement that changes a store's schema objects by name: renaming a table, or dropping a
/// table, index or trigger (migration rebuilds tables under these).
package enum SQLSchemaChange: Equatable, Sendable {
    case renameTable(String, to: String)
    case dropTable(String)
    case dropIndex(String)
    case dropTrigger(String)

    /// The statement text; it binds nothing.
    package func sql(in dialect: any SQLDialect) -> String {
        switch self {
        case .renameTable(let name, let newName):
            "ALTER TABLE " + dialect.quote(name) + " RENAME TO " + dialect.quote(newName)
        case .dropTable(let name):
            "DROP TABLE IF EXISTS " + dialect.quote(name)
        case .dropIndex(let name):
            "DROP INDEX IF EXISTS " + dialect.quote(name)
        case .dropTrigger(let name):
            "DROP TRIGGER IF EXISTS " + dialect.quote(name)
        }
    }
}
