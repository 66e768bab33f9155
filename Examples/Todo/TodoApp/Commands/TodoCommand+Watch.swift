import ArgumentParser
import Foundation
import OpenCoreData

/// `todo watch`: prints every change other `todo` processes make to the store, as they commit,
/// from the store's persistent history, woken by remote-change notifications.
struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print every change other todo processes make to the store, until interrupted.",
        discussion: "Each line is one changed row: the change, the entity, its title or name, and the process that made it.")

    @OptionGroup var options: CommonOptions

    @Option(name: .long, help: ArgumentHelp("Stop after this many changes (for scripts).", valueName: "n"))
    var count: Int?

    func run() async throws {
        let container = try options.makeContainer(watchingRemoteChanges: true)
        let coordinator = container.persistentStoreCoordinator
        let context = container.newBackgroundContext()
        let changes = AsyncStream<Void> { continuation in
            // Observed for the life of the command.
            _ = NotificationCenter.default.addObserver(forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil) { _ in
                continuation.yield()
            }
        }
        var token = coordinator.currentPersistentHistoryToken(fromStores: nil)
        Output.writeError("Watching \(coordinator.persistentStores.first?.url?.path ?? "the store") for changes; interrupt to stop.")
        var printed = 0
        for await _ in changes {
            let lines: [String]
            let after = token
            (lines, token) = try await context.perform { try Self.describeHistory(after: after, in: context) }
            for line in lines {
                Output.write(line)
                printed += 1
                if let count, printed >= count { return }
            }
        }
    }

    /// One line per change recorded after `token`, and the token to continue from.
    static func describeHistory(after token: NSPersistentHistoryToken?, in context: NSManagedObjectContext) throws
        -> ([String], NSPersistentHistoryToken?) {
        let request = NSPersistentHistoryChangeRequest.fetchHistory(after: token)
        guard let transactions = (try context.execute(request) as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction] else {
            return ([], token)
        }
        var lines: [String] = []
        for transaction in transactions {
            for change in transaction.changes ?? [] {
                lines.append(describe(change, of: transaction, in: context))
            }
        }
        return (lines, transactions.last?.token ?? token)
    }

    private static func describe(_ change: NSPersistentHistoryChange, of transaction: NSPersistentHistoryTransaction,
                                 in context: NSManagedObjectContext) -> String {
        let id = change.changedObjectID
        let entity = id.entity.name ?? "?"
        let verb: String
        switch change.changeType {
        case .insert: verb = "inserted"
        case .update: verb = "updated"
        case .delete: verb = "deleted"
        @unknown default: verb = "changed"
        }
        var text = "\(verb) \(entity)"
        if change.changeType != .delete, let object = try? context.existingObject(with: id) {
            let label = ["title", "placeName"].lazy.compactMap { key in
                object.entity.attributesByName[key] != nil ? object.value(forKey: key) as? String : nil
            }.first
            if let label { text += " \"\(label)\"" }
        }
        if let updated = change.updatedProperties, !updated.isEmpty {
            text += " (" + updated.map(\.name).sorted().joined(separator: ", ") + ")"
        }
        if !transaction.processID.isEmpty { text += " by \(transaction.processID)" }
        return text
    }
}
