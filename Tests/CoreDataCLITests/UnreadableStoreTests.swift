import Foundation
import Testing
@testable import CoreDataTool

/// Issue 37: `query`, `export` and `validate` exit 2 with the cause when a store cannot be read,
/// and never print a row, an object or a violation for values they did not read.
@Suite("Stores that cannot be read", .enabled(if: Harness.sqlite3Required, "needs sqlite3"))
struct UnreadableStoreTests {
    /// The library store, changed with the sqlite3 shell behind Core Data's back.
    private func damagedStore(_ sql: String) throws -> (store: String, model: String) {
        let (model, store) = try TestModel.importedLibrary()
        let result = try Harness.runProcess(Harness.sqlite3, [store, sql])
        #expect(result.exitCode == 0, "\(result.err)")
        return (store, model)
    }

    private static let commands: [[String]] = [["query", "Book"], ["export"], ["validate"]]

    private func run(_ command: [String], _ store: String, model: String?) -> RunResult {
        var arguments = [command[0], store] + command.dropFirst()
        if let model { arguments += ["--model", model] }
        return Harness.run(arguments)
    }

    @Test("A missing column: every reading command exits 2 naming entity, property, table and column, with --model and with the store's cache")
    func missingColumn() throws {
        let (store, model) = try damagedStore("ALTER TABLE ZBOOK DROP COLUMN ZPAGES;")
        for command in Self.commands {
            for model in [model, nil] {
                let result = run(command, store, model: model)
                #expect(result.exitCode == 2, "\(command): \(result.err)")
                #expect(result.err.contains("no column ZPAGES in table ZBOOK for the attribute 'pages' of entity 'Book'"), "\(command): \(result.err)")
                #expect(result.out.isEmpty, "\(command): \(result.out)")
            }
        }
    }

    @Test("A missing table: every reading command exits 2 naming it")
    func missingTable() throws {
        let (store, model) = try damagedStore("DROP TABLE ZTAG;")
        for command in Self.commands {
            let result = run(command, store, model: model)
            #expect(result.exitCode == 2, "\(command): \(result.err)")
            #expect(result.err.contains("no table ZTAG for entity 'Tag'"), "\(command): \(result.err)")
        }
    }

    @Test("A value that does not decode: query, export and validate exit 2 with the cause, and print nothing for the row")
    func undecodableValue() throws {
        let (store, model) = try damagedStore("UPDATE ZBOOK SET ZPAGES = 'many' WHERE ZTITLE = 'Solaris';")
        for command in Self.commands {
            let result = run(command, store, model: model)
            #expect(result.exitCode == 2, "\(command): \(result.err)")
            #expect(result.err.contains("'pages' of entity 'Book'") && result.err.contains("ZPAGES"), "\(command): \(result.err)")
            #expect(!result.out.contains("Solaris"), "\(command) printed the row it could not read: \(result.out)")
            #expect(!result.out.contains("violation"), "\(command): \(result.out)")
        }
        let csv = run(["query", "Book", "--format", "csv"], store, model: model)
        #expect(csv.exitCode == 2 && !csv.out.contains("Solaris"))
    }

    @Test("validate reports no violation for a relationship it could not read (a foreign key that is not a key)")
    func unreadRelationship() throws {
        let (store, model) = try damagedStore("UPDATE ZBOOK SET ZAUTHOR = 'nobody' WHERE ZTITLE = 'Solaris';")
        let result = run(["validate", "--json"], store, model: model)
        #expect(result.exitCode == 2, "\(result.out) \(result.err)")
        #expect(result.err.contains("'author' of entity 'Book'"), "\(result.err)")
        #expect(!result.out.contains("1570") && !result.out.contains("1580") && !result.out.contains("1590"), "\(result.out)")
    }
}
