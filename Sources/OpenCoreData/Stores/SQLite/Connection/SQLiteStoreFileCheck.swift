import Foundation
import GRDB

/// Checks of what a store file holds, made before anything uses it or writes to the file.
///
/// Every value read from a file may be anything: these checks turn what would trap later (a
/// negative `Z_ENT` sizing an array, a blob where text belongs) or what would fail only after the
/// file was switched to WAL (a damaged header) into `NSFileReadCorruptFileError` (259) at open.
package enum SQLiteStoreFileCheck {
    /// The largest `Z_ENT` accepted. Apple numbers entities 1, 2, 3… in model order; readers
    /// index arrays by entity number, so a number from a damaged file must stay small.
    package static let maximumEntityNumber = 65_535

    // MARK: - Errors

    /// `NSFileReadCorruptFileError` (259) naming the file and what is wrong in it.
    package static func corrupt(_ reason: String, url: URL) -> NSError {
        NSError(domain: NSCocoaErrorDomain, code: CocoaError.Code.fileReadCorruptFile.rawValue, userInfo: [
            NSLocalizedDescriptionKey: "The store \(url.path) is damaged: \(reason); it was not changed.",
            NSFilePathErrorKey: url.path,
        ])
    }

    /// A short description of a stored value's type, for error messages.
    package static func describe(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: return "NULL"
        case .int64: return "an integer"
        case .double: return "a real number"
        case .string: return "text"
        case .blob: return "a blob"
        }
    }

    // MARK: - Values

    /// A text column's value as a string; NULL is nil. Text must be valid UTF-8 (checked on the
    /// bytes, since SQLite's text accessor would replace invalid sequences silently).
    package static func text(_ value: DatabaseValue, column: String, url: URL) throws -> String? {
        let bytes: Data
        switch value.storage {
        case .null: return nil
        case .string(let string): return string
        case .blob(let data): bytes = data
        default: throw corrupt("\(column) holds \(describe(value)), not text", url: url)
        }
        guard let string = String(data: bytes, encoding: .utf8) else { throw corrupt("\(column) is not valid UTF-8", url: url) }
        return string
    }

    /// `Z_PRIMARYKEY`'s `Z_NAME → Z_ENT`, every row checked: a positive integer number of at
    /// most `maximumEntityNumber`, a UTF-8 name, neither repeated.
    package static func entityNumbers(_ db: Database, url: URL) throws -> [String: Int] {
        var numbers: [String: Int] = [:]
        var seen = Set<Int64>()
        // CAST AS BLOB: the name's bytes as stored, so invalid UTF-8 is seen rather than repaired.
        let rows = try Row.fetchAll(db, sql: "SELECT Z_ENT, typeof(Z_NAME), CAST(Z_NAME AS BLOB) FROM Z_PRIMARYKEY")
        for row in rows {
            let numberValue: DatabaseValue = row[0]
            let nameType: DatabaseValue = row[1]
            let nameBytes: DatabaseValue = row[2]
            if nameType == "null".databaseValue { continue }
            guard case .int64(let number) = numberValue.storage, number >= 1, number <= Int64(maximumEntityNumber) else {
                throw corrupt("Z_PRIMARYKEY.Z_ENT holds \(describe(numberValue)) (\(numberValue)), not an entity number from 1 to \(maximumEntityNumber)", url: url)
            }
            guard nameType == "text".databaseValue || nameType == "blob".databaseValue,
                  case .blob(let bytes) = nameBytes.storage, let name = String(data: bytes, encoding: .utf8), !name.isEmpty else {
                throw corrupt("Z_PRIMARYKEY.Z_NAME of entity \(number) is not a UTF-8 entity name", url: url)
            }
            guard seen.insert(number).inserted, numbers[name] == nil else {
                throw corrupt("Z_PRIMARYKEY names entity \(number) or '\(name)' twice", url: url)
            }
            numbers[name] = Int(number)
        }
        return numbers
    }

    // MARK: - Header

    /// Checks the fields of the 100-byte database header SQLite only checks when it writes
    /// (<https://www.sqlite.org/fileformat2.html#the_database_header>).
    package static func checkHeader(_ header: Data, url: URL) throws {
        guard header.count >= 100 else { return }
        let largestRoot = integer(header, at: 52)
        let incremental = integer(header, at: 64)
        if largestRoot == 0 && incremental != 0 {
            throw corrupt("the header enables incremental vacuum (bytes 64–67) without a largest root page (bytes 52–55)", url: url)
        }
        // The in-header page count is valid only when its version-valid-for number (bytes 92–95)
        // equals the change counter (bytes 24–27); files from SQLite before 3.7 may not keep it.
        let pageCount = integer(header, at: 92) == integer(header, at: 24) ? integer(header, at: 28) : 0
        if largestRoot != 0 && pageCount != 0 && largestRoot > pageCount {
            throw corrupt("the header's largest root page (bytes 52–55: \(largestRoot)) is beyond its page count (\(pageCount))", url: url)
        }
    }

    /// In an auto-vacuum file, the header's largest root page (bytes 52–55) is the largest
    /// `rootpage` of the schema; SQLite relies on it when it writes, so a wrong one fails the
    /// first write — after the switch to WAL — and is refused here instead. Only for a header
    /// read from a file that has no WAL content (a `-wal` may hold a newer page 1).
    package static func checkRootPage(_ header: Data, db: Database, url: URL) throws {
        guard header.count >= 100 else { return }
        let largestRoot = integer(header, at: 52)
        guard largestRoot != 0 else { return }
        let schemaRoot = try Int64.fetchOne(db, sql: "SELECT MAX(rootpage) FROM sqlite_master") ?? 0
        if Int64(largestRoot) != schemaRoot {
            throw corrupt("the header's largest root page (bytes 52–55: \(largestRoot)) disagrees with the schema's (\(schemaRoot))", url: url)
        }
    }

    private static func integer(_ header: Data, at offset: Int) -> UInt32 {
        let start = header.startIndex + offset
        return header[start..<start + 4].reduce(UInt32(0)) { ($0 << 8) | UInt32($1) }
    }

    // MARK: - Trial write

    /// Makes, and rolls back, the write that opening the store read-write begins with, on a
    /// connection whose rollback journal is in memory: a file SQLite cannot write fails here,
    /// before the switch to WAL changes it. Only for files in rollback-journal mode: SQLite goes
    /// by the read version alone (header byte 19; 2 is WAL, whatever the write version in byte
    /// 18 says), so every other read version is switched; a WAL-mode file is not switched and the
    /// opening write goes to its WAL.
    package static func trialWrite(_ header: Data, url: URL, timeout: TimeInterval) throws {
        guard header.count >= 100, header[header.startIndex + 19] != 2 else { return }
        var configuration = Configuration()
        configuration.busyMode = .timeout(timeout)
        configuration.label = "OpenCoreData.trialWrite"
        configuration.foreignKeysEnabled = false
        configuration.allowsUnsafeTransactions = true
        do {
            let queue = try DatabaseQueue(path: url.path, configuration: configuration)
            defer { try? queue.close() }
            try queue.writeWithoutTransaction { db in
                // The journal in memory and no cache spill: nothing reaches the file or its folder.
                try db.execute(sql: "PRAGMA journal_mode = MEMORY")
                try db.execute(sql: "PRAGMA cache_spill = OFF")
                try db.execute(sql: "BEGIN IMMEDIATE")
                do {
                    try db.execute(sql: "CREATE TABLE ocd_open_check (id INTEGER PRIMARY KEY); DROP TABLE ocd_open_check")
                } catch {
                    try? db.execute(sql: "ROLLBACK")
                    throw error
                }
                try db.execute(sql: "ROLLBACK")
            }
        } catch {
            throw SQLiteStoreErrors.openError(error, url: url)
        }
    }
}
