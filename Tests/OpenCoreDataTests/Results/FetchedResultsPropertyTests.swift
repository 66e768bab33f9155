import Foundation
import Testing
@testable import OpenCoreData

/// Random inserts, deletes, edits of sort, section and predicate keys (directly and through a
/// related list), batched and saved at random; after every batch the reported changes, replayed on
/// the old sections as a table view would, must give the controller's sections and a fresh fetch's.
@Suite("NSFetchedResultsController: random changes replayed as a table view")
struct FetchedResultsPropertyTests {
    enum Shape: String, CaseIterable, Sendable { case sectioned, unsectioned }

    /// Batches per run (1 to 6 changes each): `OCD_FRC_BATCHES`, else 1,000.
    static var batches: Int {
        ProcessInfo.processInfo.environment["OCD_FRC_BATCHES"].flatMap(Int.init).map { max(1, $0) } ?? 1_000
    }

    @Test("Replaying every batch's changes on the old sections gives the new sections", arguments: StoreKind.allCases, Shape.allCases)
    func randomChanges(_ kind: StoreKind, _ shape: Shape) throws {
        let context = try kind.context(Live.model())
        let sectioned = shape == .sectioned
        let predicate = NSPredicate(format: "visible == YES AND (list == nil OR list.title != 'hidden')")
        var random = SeededGenerator(seed: kind == .sqlite ? 41 : 7)
        let recorder = LiveRecorder()
        try context.performAndWait { () throws in
            let lists = (0..<3).map { _ in Live.list("shown", in: context) }
            var serial = 0
            func insert() {
                serial += 1
                Live.item("n\(serial)", group: ["a", "b", "c", "d"].randomElement(using: &random)!,
                          rank: Int.random(in: 0...4, using: &random), visible: Int.random(in: 0...4, using: &random) > 0,
                          list: Bool.random(using: &random) ? lists.randomElement(using: &random) : nil, in: context)
            }
            for _ in 0..<20 { insert() }
            try context.save()
            let controller = Live.controller(context, predicate, sectioned: sectioned)
            controller.delegate = recorder
            // Chunks of 4 results (and 4 sections), so that the batches split and merge the
            // chunked lists the results are kept in, as 512-result chunks do at 100,000 results.
            controller.sharedCore.chunkCapacity = 4
            try controller.performFetch()
            var layout = Live.layout(controller)
            #expect(layout == (try Live.freshLayout(context, predicate, sectioned: sectioned)))

            for batch in 0..<Self.batches {
                let items = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
                var log: [String] = []
                for _ in 0..<(Int.random(in: 0...5, using: &random) == 0 ? Int.random(in: 2...6, using: &random) : 1) {
                    let target = items.filter { !$0.isDeleted }.randomElement(using: &random)
                    let operation = Int.random(in: 0..<10, using: &random)
                    log.append("op \(operation) on \(target.map(Live.name) ?? "-")")
                    switch operation {
                    case 0, 1: insert()
                    case 2: if let target { context.delete(target) }
                    case 3: target?.setValue(["a", "b", "c", "d", "e"].randomElement(using: &random)!, forKey: "group")
                    case 4, 5: target?.setValue(NSNumber(value: Int.random(in: 0...4, using: &random)), forKey: "rank")
                    case 6: target?.setValue(NSNumber(value: Bool.random(using: &random)), forKey: "visible")
                    case 7: target?.setValue(Bool.random(using: &random) ? lists.randomElement(using: &random) : nil, forKey: "list")
                    case 8: lists.randomElement(using: &random)!.setValue(Bool.random(using: &random) ? "hidden" : "shown", forKey: "title")
                    default: target.map { $0.setValue(Live.name($0) + "'", forKey: "name") }  // the last sort key
                    }
                }
                if Int.random(in: 0..<8, using: &random) == 0 { try context.save(); log.append("save") } else { context.processPendingChanges() }

                let replay = TableReplay.applyBatches(recorder.take(), to: layout)
                #expect(replay.problems == [], "batch \(batch)")
                layout = Live.layout(controller)
                #expect(replay.result == layout, "batch \(batch)")
                let fresh = try Live.freshLayout(context, predicate, sectioned: sectioned)
                #expect(layout == fresh, "batch \(batch): \(log)")
                if !replay.problems.isEmpty || replay.result != layout || layout != fresh { return }
            }
        }
    }
}
