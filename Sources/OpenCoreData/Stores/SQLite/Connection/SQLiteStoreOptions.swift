import Foundation
import GRDB

/// Option (OpenCoreData only, package API): with `NSReadOnlyPersistentStoreOption`, open a store
/// even though its version hashes differ from the model's. Ignored for writable stores.
package let OCDReadOnlyIgnoringVersionHashesOption = "OCDReadOnlyIgnoringVersionHashesOption"

/// The store options Apple defines that the SQLite store honours.
package struct SQLiteStoreOptions {
    /// `NSReadOnlyPersistentStoreOption`.
    package var readOnly = false
    /// `NSPersistentStoreTimeoutOption`, in seconds: how long a connection waits for a lock.
    package var busyTimeout: TimeInterval = 10
    /// `NSSQLitePragmasOption`, validated: names are identifiers, values plain tokens.
    package var pragmas: [(name: String, value: String)] = []
    /// `OCDReadOnlyIgnoringVersionHashesOption` with `NSReadOnlyPersistentStoreOption`: open a
    /// store whose hashes differ from the model (inspection tools, and stores whose model
    /// uses features the hash algorithm does not cover yet).
    package var ignoresVersionHashes = false
    /// `NSMigratePersistentStoresAutomaticallyOption`: migrate a store whose model differs.
    package var migratesAutomatically = false
    /// `NSInferMappingModelAutomaticallyOption`: infer the mapping when no mapping model is given.
    package var infersMappingModel = false
    /// `NSPersistentStoreDeferredLightweightMigrationOptionKey`: a lightweight migration leaves
    /// dropping the old tables to `finishDeferredLightweightMigration()`.
    package var defersLightweightCleanup = false
    /// `OCDExternalBinaryDataThresholdOption`: values of external-storage attributes larger than
    /// this many bytes are written to files beside the store.
    package var externalDataThreshold = SQLiteExternalData.defaultThreshold
    /// `NSPersistentHistoryTrackingKey`: create Apple's history tables if the store lacks them
    /// and record every save (a store that has them records history either way).
    package var tracksHistory = false

    /// The default busy timeout, in seconds.
    package static let defaultBusyTimeout: TimeInterval = 10

    /// Parses the options dictionary given to `addPersistentStore`.
    /// - Throws: `NSPersistentStoreInvalidTypeError`-free `NSCoreDataError` for a malformed pragma.
    ///   `NSPersistentStoreFileProtectionKey` is accepted and ignored (no file protection on Linux).
    package init(_ options: [AnyHashable: Any]?) throws {
        guard let options else { return }
        readOnly = Self.bool(options[NSReadOnlyPersistentStoreOption]) ?? false
        ignoresVersionHashes = readOnly && (Self.bool(options[OCDReadOnlyIgnoringVersionHashesOption]) ?? false)
        migratesAutomatically = Self.bool(options[NSMigratePersistentStoresAutomaticallyOption]) ?? false
        infersMappingModel = Self.bool(options[NSInferMappingModelAutomaticallyOption]) ?? false
        defersLightweightCleanup = Self.bool(options[NSPersistentStoreDeferredLightweightMigrationOptionKey]) ?? false
        tracksHistory = Self.bool(options[NSPersistentHistoryTrackingKey]) ?? false
        if let threshold = options[OCDExternalBinaryDataThresholdOption] {
            guard let bytes = AttributeConversion.double(threshold), bytes >= 0, let value = Int(exactly: bytes.rounded(.down)) else {
                throw CoreDataError.make(NSCoreDataError, "OCDExternalBinaryDataThresholdOption must be a number of bytes (0 or more), not '\(threshold)'.")
            }
            externalDataThreshold = value
        }
        if let timeout = options[NSPersistentStoreTimeoutOption] {
            if let seconds = AttributeConversion.double(timeout), seconds >= 0 { busyTimeout = seconds }
        }
        if let raw = options[NSSQLitePragmasOption] {
            guard let dictionary = raw as? [AnyHashable: Any] else {
                throw CoreDataError.make(NSCoreDataError, "NSSQLitePragmasOption must be a dictionary of pragma name to value.")
            }
            for (key, value) in dictionary {
                let name = "\(key.base)".lowercased()
                let text: String
                if let bool = value as? Bool { text = bool ? "1" : "0" } else { text = "\(value)" }
                guard Self.isToken(name, allowingDots: false), Self.isToken(text, allowingDots: true) else {
                    throw CoreDataError.make(NSCoreDataError, "NSSQLitePragmasOption: '\(key)' = '\(value)' is not a plain pragma name and value.")
                }
                pragmas.append((name, text))
            }
            pragmas.sort { $0.name < $1.name }
        }
    }

    /// The pragmas applied to every connection, except those the store manages itself.
    ///
    /// `journal_mode` is left out (the store always uses WAL; see Deviations.md).
    package var connectionPragmas: [(name: String, value: String)] {
        pragmas.filter { $0.name != "journal_mode" }
    }

    /// The GRDB configuration of the store's connections.
    /// - Parameter reports: where the derived-attribute triggers' calls are recorded (nil: ignored).
    package func configuration(label: String, reports: SQLiteDerivedValueReports? = nil) -> Configuration {
        var configuration = Configuration()
        configuration.label = label
        configuration.readonly = readOnly
        configuration.busyMode = .timeout(busyTimeout)
        configuration.foreignKeysEnabled = false
        configuration.maximumReaderCount = 4
        let pragmas = connectionPragmas
        let readOnly = readOnly
        configuration.prepareDatabase { db in
            SQLiteStoreFunctions.register(in: db, reports: reports)
            if !readOnly, try Int.fetchOne(db, sql: "PRAGMA page_count") == 0 {
                // A new file: Apple's stores use incremental auto-vacuum (`_NSAutoVacuumLevel` 2).
                try db.execute(sql: "PRAGMA auto_vacuum = 2")
            }
            for pragma in pragmas {
                // Pragma values cannot be bound; both parts were validated as plain tokens.
                try db.execute(sql: "PRAGMA \(pragma.name) = \(pragma.value)")
            }
        }
        return configuration
    }

    static func bool(_ value: Any?) -> Bool? {
        switch value {
        case let bool as Bool: return bool
        case let number as NSNumber: return number.boolValue
        case let string as String: return ["1", "yes", "true"].contains(string.lowercased())
        default: return nil
        }
    }

    private static func isToken(_ text: String, allowingDots: Bool) -> Bool {
        !text.isEmpty && text.utf8.count <= 64 && text.unicodeScalars.allSatisfy { scalar in
            (scalar.properties.isASCIIHexDigit || (scalar.value >= 65 && scalar.value <= 90) || (scalar.value >= 97 && scalar.value <= 122)
                || scalar == "_" || (allowingDots && (scalar == "." || scalar == "-")))
        }
    }
}

/// SQL functions Apple's stores call from their triggers, and the predicate engine's.
package enum SQLiteStoreFunctions {
    /// Registers the functions that derived-attribute triggers (Apple's and ours) call with
    /// `(table, Z_ENT, Z_PK, attribute, value)` after they changed a row's derived value, so
    /// writes to tables with such triggers succeed (formats.md §3.5) and the store learns which
    /// rows changed (`reports`), and the functions and collations predicate lowering uses
    /// (`SQLiteFunctions`).
    package static func register(in db: Database, reports: SQLiteDerivedValueReports? = nil) {
        for name in [SQLiteDerivation.updatedFunction, SQLiteDerivation.insertUpdatedFunction] {
            db.add(function: DatabaseFunction(name, argumentCount: nil, pure: false) { arguments in
                if let reports, arguments.count >= 3, let entity = Int64.fromDatabaseValue(arguments[1]),
                   let key = Int64.fromDatabaseValue(arguments[2]) {
                    reports.record(entityNumber: entity, primaryKey: key)
                }
                return nil
            })
        }
        SQLiteFunctions.register(in: db)
    }

    /// The SQL name of the `MATCHES` function.
    package static let matchesFunctionName = SQLiteFunctions.Name.matches.rawValue
}
