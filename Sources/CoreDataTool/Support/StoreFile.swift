import Foundation
import GRDB
import OpenCoreData

/// Read-only access to a store file for what Core Data's API does not show: the model cache,
/// `Z_PRIMARYKEY`, the SQL schema, row counts and primary keys in order.
///
/// Opened where the library reads read-only stores from (`SQLiteReadOnlyLocation`), so the
/// file and its companions are never created or changed.
final class StoreFile {
    /// One row of `Z_PRIMARYKEY`.
    struct EntityRow: Sendable {
        var number: Int
        var name: String
        var superNumber: Int
        var maxKey: Int64
    }

    /// One row of `sqlite_master`.
    struct SchemaObject: Sendable {
        var type: String
        var name: String
        var tableName: String
        var sql: String?
    }

    let url: URL
    /// The metadata, `NSStoreUUID` and `NSStoreType` merged in (as `metadataForPersistentStore` returns them).
    let metadata: [String: Any]
    private let queue: DatabaseQueue
    private let location: SQLiteReadOnlyLocation

    /// Opens the store at `path` read-only.
    /// - Throws: `ToolError` for a missing path, a directory, a file that is not SQLite or not a Core Data store.
    init(path: String) throws {
        let url = URL(fileURLWithPath: path)
        self.url = url
        let inspection: SQLiteStoreInspection?
        do {
            inspection = try SQLiteStoreFile.inspect(url)
        } catch {
            throw ToolError.wrapping(error)
        }
        guard let inspection else { throw ToolError("no store file at \(path)") }
        if inspection.isEmpty { throw ToolError("\(path) is an empty database, not a Core Data store") }
        metadata = inspection.metadata
        do {
            location = try SQLiteReadOnlyLocation.forReading(url)
        } catch {
            throw ToolError.wrapping(error)
        }
        do {
            queue = try DatabaseQueue(path: location.path, configuration: SQLiteStoreFile.readOnlyConfiguration(label: "coredata.inspect"))
        } catch {
            location.remove()
            throw ToolError("cannot open \(path) read-only: \(ToolError.describe(error))")
        }
    }

    /// Closes the connection.
    func close() {
        try? queue.close()
        location.remove()
    }

    private func read<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try queue.read(body)
        } catch {
            throw ToolError("cannot read \(url.path): \(ToolError.describe(error))")
        }
    }

    // MARK: - Contents

    /// `Z_MODELCACHE.Z_CONTENT`, or nil when the store has none (stores before framework 1xxx, ours).
    func modelCache() throws -> Data? {
        try read { db in
            guard try db.tableExists("Z_MODELCACHE") else { return nil }
            return try Data.fetchOne(db, sql: Self.bookkeeping.selectModelCache, arguments: [1])
        }
    }

    /// The rows of `Z_PRIMARYKEY`, by `Z_ENT`.
    func entityRows() throws -> [EntityRow] {
        try read { db in
            try Row.fetchAll(db, sql: Self.bookkeeping.selectEntities).compactMap { row in
                // Raw values: a typed subscript stops the process on a value of another type.
                guard let number = Self.integer(row[0]), let name = String.fromDatabaseValue(row[1]) else { return nil }
                return EntityRow(number: Int(clamping: number), name: name, superNumber: Int(clamping: Self.integer(row[2]) ?? 0), maxKey: Self.integer(row[3]) ?? 0)
            }
        }
    }

    private static func integer(_ value: DatabaseValue) -> Int64? {
        if case .int64(let number) = value.storage { return number }
        return nil
    }

    /// The rows of `sqlite_master`, in file order.
    func schemaObjects() throws -> [SchemaObject] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid").map { row in
                SchemaObject(type: String.fromDatabaseValue(row[0]) ?? "", name: String.fromDatabaseValue(row[1]) ?? "",
                             tableName: String.fromDatabaseValue(row[2]) ?? "", sql: String.fromDatabaseValue(row[3]))
            }
        }
    }

    /// The names of the file's tables.
    func tableNames() throws -> Set<String> {
        try read { db in Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")) }
    }

    /// The table an entity's rows live in: `Z` + its root entity's name upper-cased (formats.md §3),
    /// or `A` + the name for Core Data's persistent-history entities (`ATRANSACTION`, `ACHANGE`).
    static func tableName(forEntityNumber number: Int, in rows: [EntityRow], tables: Set<String>) -> String? {
        let byNumber = Dictionary(rows.map { ($0.number, $0) }, uniquingKeysWith: { first, _ in first })
        guard var current = byNumber[number] else { return nil }
        var seen: Set<Int> = [current.number]
        while current.superNumber != 0, let parent = byNumber[current.superNumber], seen.insert(parent.number).inserted {
            current = parent
        }
        let name = "Z" + current.name.uppercased()
        if !tables.contains(name), tables.contains("A" + current.name.uppercased()) { return "A" + current.name.uppercased() }
        return name
    }

    /// The library's mapping of a model onto this file: entity numbers by `Z_PRIMARYKEY` name, tables.
    static func schema(for model: NSManagedObjectModel, rows: [EntityRow], tables: Set<String> = []) -> SQLStoreSchema {
        SQLStoreSchema(model: model, storedNumbers: Dictionary(rows.map { ($0.name, $0.number) }, uniquingKeysWith: { first, _ in first }),
                       storedTables: tables)
    }

    /// The number of rows of one entity (not its subentities) in a table.
    func rowCount(table: String, entityNumber: Int) throws -> Int {
        try read { db in
            let dialect = Self.dialect
            var select = SQLSelect(from: dialect.identifier(table))
            select.columns = [SQLFragment("COUNT(*)")]
            let columns = try db.columns(in: table).map { $0.name.uppercased() }
            if columns.contains("Z_ENT") {
                select.conditions = [dialect.identifier("Z_ENT") + " = " + dialect.parameter(.integer(Int64(entityNumber)))]
            }
            let sql = select.render(in: dialect)
            return try Int.fetchOne(db, sql: sql.sql(in: dialect), arguments: sql.statementArguments) ?? 0
        }
    }

    /// Up to `limit` primary keys of one entity's rows after `key`, ascending: keyset paging,
    /// so walking a table of any size costs one indexed query per page.
    func primaryKeys(table: String, entityNumber: Int, after key: Int64, limit: Int) throws -> [Int64] {
        try read { db in
            guard limit > 0 else { return [] }
            let dialect = Self.dialect
            var select = SQLSelect(from: dialect.identifier(table))
            select.columns = [dialect.identifier("Z_PK")]
            select.conditions = [dialect.identifier("Z_ENT") + " = " + dialect.parameter(.integer(Int64(entityNumber))),
                                 dialect.identifier("Z_PK") + " > " + dialect.parameter(.integer(key))]
            select.orderBy = [dialect.identifier("Z_PK")]
            select.limit = limit
            let sql = select.render(in: dialect)
            return try Int64.fetchAll(db, sql: sql.sql(in: dialect), arguments: sql.statementArguments)
        }
    }

    /// The library's SQL layer writes the tool's statements: one quoting rule for both.
    static let dialect: any SQLDialect = SQLiteDialect()
    /// The statements of `Z_PRIMARYKEY` and `Z_MODELCACHE`.
    static let bookkeeping = SQLBookkeepingStatements(dialect: dialect)

    // MARK: - Files

    /// The sizes of the database and its `-wal` and `-shm` companions (nil when absent).
    static func fileSizes(of url: URL) -> [(name: String, size: Int64?)] {
        ["", "-wal", "-shm"].map { suffix in
            let path = url.path + suffix
            let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber
            return (url.lastPathComponent + suffix, size?.int64Value)
        }
    }

    /// Whether a file starts with SQLite's header (to tell a store from a model file).
    static func looksLikeSQLite(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        return header == Data("SQLite format 3\0".utf8)
    }
}
