import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Issue 30, point 1, property test: random binary values of an attribute with
/// `allowsExternalBinaryDataStorage` round-trip byte for byte through save, reopen, update,
/// undo, delete and lightweight migration, and the external-data folder holds exactly the files
/// the rows own (none lost, none left behind).
///
/// The values: every length 0–256 once, then random bytes of random lengths 0–256, values framed
/// like another implementation's reference (a non-printing byte, a UUID's text, a non-printing
/// byte) naming files that exist (other rows' files) or do not, BLOBs holding the text of our own
/// marker, and nil. The threshold is lowered to 200 bytes, so the longest values go to files and
/// framed values meet real file names.
///
/// Two stores: one OpenCoreData created, and a copy of Apple's `SampleModel_V1.sqlite` (CoreDataPlus)
/// to which a lightweight migration adds a `Document` entity: no Apple-written fixture has an
/// attribute with external storage, so this store has Apple's metadata and tables with our
/// `Document` table beside them. Its metadata has no OpenCoreData bookkeeping key, so it is read
/// by the rule for stores another implementation created.
///
/// Values per store: `OCD_FUZZ_COUNT` when set, else 10,000 (half inserted, half updated).
@Suite("External binary data property")
struct ExternalBinaryDataPropertyTests {
    typealias E = ExternalBinaryDataTests
    typealias M = TestModels

    static var count: Int {
        ProcessInfo.processInfo.environment["OCD_FUZZ_COUNT"].flatMap(Int.init).map { max(2, $0) } ?? 10_000
    }

    static let threshold = 200
    static var options: [AnyHashable: Any] {
        [OCDExternalBinaryDataThresholdOption: threshold,
         NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true]
    }

    // MARK: - Values

    /// Draws values from a seed; framed values name files of `existing` or new UUIDs.
    struct Values {
        var generator: SeededGenerator
        var drawn = 0

        mutating func next(existing: [String]) -> Data? {
            defer { drawn += 1 }
            if drawn <= 256 { return random(length: drawn) }
            switch Int.random(in: 0..<20, using: &generator) {
            case 0: return nil
            case 1...3:
                let name = existing.randomElement(using: &generator).flatMap(UUID.init(uuidString:)) ?? UUID()
                return framed(name)
            case 4...5: return framed(UUID())
            case 6:
                let name = existing.randomElement(using: &generator) ?? UUID().uuidString
                return Data("OCD-EXTERNAL-DATA:1:\(name):\(Int.random(in: 0...300, using: &generator))".utf8)
            default: return random(length: Int.random(in: 0...256, using: &generator))
            }
        }

        private mutating func random(length: Int) -> Data {
            Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }

        /// A UUID's text with 1–14 non-printing bytes around it, 37–50 bytes in all.
        private mutating func framed(_ name: UUID) -> Data {
            let before = Int.random(in: 0...2, using: &generator), after = Int.random(in: (before == 0 ? 1 : 0)...12, using: &generator)
            func framing(_ count: Int) -> Data { Data((0..<count).map { _ in UInt8.random(in: 0...0x1F, using: &generator) }) }
            var text = name.uuidString
            if Bool.random(using: &generator) { text = text.lowercased() }
            return framing(before) + Data(text.utf8) + framing(after)
        }
    }

    // MARK: - Stores

    enum Kind: String, CaseIterable, CustomStringConvertible {
        case ours, appleCopy
        var description: String { rawValue }
    }

    /// `Document` (as `ExternalBinaryDataTests.model`) alone, or beside the entities of
    /// CoreDataPlus `SampleModel` V1 for the Apple-written copy.
    static func model(_ kind: Kind, note: Bool = false) -> NSManagedObjectModel {
        let documents = E.model(note: note)
        guard kind == .appleCopy else { return documents }
        let document = documents.entities[0]
        documents.entities = []
        let model = FixtureModels.coreDataPlusSampleModelV1()
        model.entities += [document]
        return model
    }

    static func store(_ kind: Kind) throws -> URL {
        switch kind {
        case .ours:
            return TestStoreFiles.newStoreURL()
        case .appleCopy:
            let url = try Fixtures.copy(Fixtures.store("CoreDataPlus/Tests/Resources/SampleModel/Fixtures/SampleModel_V1.sqlite"))
            _ = try E.payloads(at: url, model: model(kind), options: options)
            return url
        }
    }

    // MARK: - Checks

    /// Reads every document with a fresh coordinator and compares it to `expected` (by name),
    /// and the folder's files to those the values need: one per value over the threshold, and in
    /// a store another implementation made one per value framed like its reference.
    static func check(_ expected: [String: Data?], at url: URL, model: NSManagedObjectModel, foreign: Bool,
                      sourceLocation: SourceLocation = #_sourceLocation) throws {
        let context = try E.open(url, model: model, options: options)
        let stored: [String: Data?] = try context.performAndWait {
            var stored: [String: Data?] = [:]
            for document in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Document")) {
                stored[document.value(forKey: "name") as? String ?? ""] = document.value(forKey: "payload") as? Data
            }
            return stored
        }
        let wrong = expected.filter { stored[$0.key] != $0.value }.map(\.key).sorted()
        #expect(stored.count == expected.count && wrong.isEmpty, "\(wrong.count) values differ, first \(wrong.first ?? "-"): \(String(describing: wrong.first.flatMap { stored[$0] })) instead of \(String(describing: wrong.first.flatMap { expected[$0] }))", sourceLocation: sourceLocation)
        let files = expected.values.compactMap { $0 }.filter { $0.count > threshold || (foreign && SQLiteExternalData.foreignReference($0) != nil) }.count
        #expect(E.externalFiles(url).count == files, "files in _EXTERNAL_DATA", sourceLocation: sourceLocation)
    }

    // MARK: - The property

    @Test("Random binary values round-trip through save, reopen, update, undo, delete and migration", arguments: Kind.allCases)
    func valuesRoundTrip(kind: Kind) throws {
        let url = try Self.store(kind)
        let foreign = kind == .appleCopy
        let model = Self.model(kind)
        var values = Values(generator: SeededGenerator(seed: kind == .ours ? 0x0E87_DA7A : 0x0A99_1E30))
        let objects = Self.count / 2
        let chunk = 500
        var expected: [String: Data?] = [:]
        let context = try E.open(url, model: model, options: Self.options)
        var ids: [String: NSManagedObjectID] = [:]

        // Insert, a chunk per save: framed values of later chunks name files of earlier ones.
        for start in stride(from: 0, to: objects, by: chunk) {
            let existing = E.externalFiles(url)
            try context.performAndWait {
                var inserted: [(String, NSManagedObject)] = []
                for index in start..<min(start + chunk, objects) {
                    let name = String(format: "%06d", index)
                    let value = values.next(existing: existing)
                    let document = NSEntityDescription.insertNewObject(forEntityName: "Document", into: context)
                    document.setValue(name, forKey: "name")
                    document.setValue(value, forKey: "payload")
                    expected[name] = value
                    inserted.append((name, document))
                }
                try context.save()
                for (name, document) in inserted { ids[name] = document.objectID }
            }
        }
        try Self.check(expected, at: url, model: model, foreign: foreign)

        // Update every object.
        let names = expected.keys.sorted()
        for start in stride(from: 0, to: names.count, by: chunk) {
            let existing = E.externalFiles(url)
            try context.performAndWait {
                for name in names[start..<min(start + chunk, names.count)] {
                    let value = values.next(existing: existing)
                    context.object(with: ids[name]!).setValue(value, forKey: "payload")
                    expected[name] = value
                }
                try context.save()
            }
        }
        try Self.check(expected, at: url, model: model, foreign: foreign)

        // Undo: changes and deletions undone before the save leave the store as it was.
        let existing = E.externalFiles(url)
        try context.performAndWait {
            context.undoManager = UndoManager()
            context.undoManager?.groupsByEvent = false
            context.undoManager?.beginUndoGrouping()
            for name in names.prefix(200) {
                context.object(with: ids[name]!).setValue(values.next(existing: existing), forKey: "payload")
            }
            for name in names.dropFirst(200).prefix(50) { context.delete(context.object(with: ids[name]!)) }
            context.undoManager?.endUndoGrouping()
            context.undoManager?.undo()
            try context.save()
            context.undoManager = nil
        }
        try Self.check(expected, at: url, model: model, foreign: foreign)

        // Delete every third object.
        try context.performAndWait {
            for name in names.enumerated().filter({ $0.offset % 3 == 0 }).map(\.element) {
                context.delete(context.object(with: ids[name]!))
                expected[name] = nil
            }
            try context.save()
        }
        try Self.check(expected, at: url, model: model, foreign: foreign)

        // Lightweight migration in place (a new attribute): markers and files move with their rows.
        try Self.check(expected, at: url, model: Self.model(kind, note: true), foreign: foreign)
        #expect(SQLiteExternalData.isOpenCoreDataBookkeeping(try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)) == !foreign)
    }
}
