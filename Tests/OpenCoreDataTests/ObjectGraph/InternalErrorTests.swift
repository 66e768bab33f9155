import Foundation
import Testing
@testable import OpenCoreData

/// Errors are `NSError`s (issue 30, Must 5): a conflict that survives the save's retries is
/// reported as Apple's merge error, a dictionary column's key path that names no readable value
/// is refused with 134060 instead of stopping the process, and every error type the library
/// declares is accounted for at the public boundary.
@Suite("Internal errors never escape")
struct InternalErrorTests {
    typealias M = TestModels

    /// A merge policy that leaves every optimistic-locking conflict as it is, so a save never
    /// gets past it (a user policy can do this; so can other writers that keep committing).
    final class StubbornMergePolicy: NSMergePolicy, @unchecked Sendable {
        // Unchecked: it adds no state to NSMergePolicy.
        override func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws {}
    }

    @Test("A conflict that survives every retry is NSManagedObjectMergeError (133020) with its conflicts, and nothing is written", arguments: StoreKind.allCases)
    func persistentConflictIsAppleError(kind: StoreKind) throws {
        let (first, second) = try kind.contextPair(M.todoModel())
        let id = try first.performAndWait {
            let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: first)
            todo.setValue("original", forKey: "title")
            try first.save()
            return todo.objectID
        }
        // The second context reads the row (and keeps the object: a context does not retain
        // unchanged objects), the first changes it, then the second saves over it.
        let error = try second.performAndWait {
            let mine = try second.existingObject(with: id)
            _ = mine.value(forKey: "title")
            try first.performAndWait {
                try first.existingObject(with: id).setValue("first", forKey: "title")
                try first.save()
            }
            second.mergePolicy = StubbornMergePolicy(merge: .mergeByPropertyObjectTrumpMergePolicyType)
            mine.setValue("second", forKey: "title")
            return try #require(throws: NSError.self) { try second.save() }
        }
        #expect(error.domain == NSCocoaErrorDomain && error.code == NSManagedObjectMergeError)
        let conflicts = try #require(error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict])
        #expect(conflicts.map(\.sourceObject.objectID) == [id])
        let stored = try first.performAndWait {
            first.refreshAllObjects()
            return try first.existingObject(with: id).value(forKey: "title") as? String
        }
        #expect(stored == "first")
        // The second context keeps its change, as after any failed save.
        second.performAndWait { #expect(second.hasChanges) }
    }

    @Test("A dictionary column that names no readable key path is refused with 134060, never a stop in valueForUndefinedKey",
          arguments: StoreKind.allCases)
    func dictionaryKeyPathsAreChecked(kind: StoreKind) throws {
        let context = try kind.context(M.todoModel())
        try context.performAndWait {
            let tag = NSEntityDescription.insertNewObject(forEntityName: "TagEntity", into: context)
            tag.setValue("home", forKey: "name")
            let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
            todo.setValue("milk", forKey: "title")
            todo.setValue(Set([tag]), forKey: "tags")
            try context.save()
            for key in ["tags.name\" --", "title.", "tags.@count\"", "title'", ".title", "title..x", "tags.@count.name", "title.length", "tags.@sum", "@count"] {
                let request = NSFetchRequest<NSDictionary>(entityName: "TodoEntity")
                request.resultType = .dictionaryResultType
                request.propertiesToFetch = [key]
                let error = try #require(throws: NSError.self, "\(key)") { try context.fetch(request) }
                #expect(error.domain == NSCocoaErrorDomain && error.code == NSCoreDataError, "\(key)")
                #expect(error.localizedDescription.contains(key), "\(key)")
            }
            // An aggregate over such a key path is refused the same way.
            let sum = NSExpressionDescription()
            sum.name = "total"
            sum.expression = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "priority.")])
            sum.expressionResultType = .integer64AttributeType
            let request = NSFetchRequest<NSDictionary>(entityName: "TodoEntity")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = [sum]
            #expect(throws: NSError.self) { try context.fetch(request) }
            // Readable key paths still work: an attribute, a to-one's attribute.
            let plain = NSFetchRequest<NSDictionary>(entityName: "TodoEntity")
            plain.resultType = .dictionaryResultType
            plain.propertiesToFetch = ["title"]
            #expect(try context.fetch(plain).map { $0["title"] as? String } == ["milk"])
        }
    }

    @Test("Fuzzed dictionary columns: no trap, 134060 for what the model cannot read, the same rows on both stores for the rest")
    func dictionaryKeyPathFuzz() throws {
        let count = ProcessInfo.processInfo.environment["OCD_FUZZ_COUNT"].flatMap(Int.init).map { max(1, $0 / 10) } ?? 2_000
        let contexts = try StoreKind.allCases.map { try $0.context(M.todoModel()) }
        for context in contexts {
            try context.performAndWait {
                let place = NSEntityDescription.insertNewObject(forEntityName: "LocationEntity", into: context)
                place.setValue("Oslo", forKey: "placeName")
                for index in 0..<3 {
                    let tag = NSEntityDescription.insertNewObject(forEntityName: "TagEntity", into: context)
                    tag.setValue("t\(index)", forKey: "name")
                    let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
                    todo.setValue("todo \(index)", forKey: "title")
                    todo.setValue(Int16(index), forKey: "priority")
                    todo.setValue(Set([tag]), forKey: "tags")
                    if index > 0 { todo.setValue(place, forKey: "location") }
                }
                try context.save()
            }
        }
        let pieces = ["title", "priority", "tags", "name", "location", "placeName", "todos", "@count", "@max", "@sum", "@avg", "@min",
                      "@foo", "objectID", "self", "", " ", "\"", "'", " --", "\u{0}", "é", "title'", "x"]
        let model = M.todoModel()
        let todoEntity = try #require(model.entitiesByName["TodoEntity"])
        var random = SeededGenerator(seed: 0x0DC0_1A55)
        for input in 0..<count {
            var path = pieces.randomElement(using: &random)!
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                path += (Int.random(in: 0..<6, using: &random) == 0 ? "" : ".") + pieces.randomElement(using: &random)!
            }
            let readable = DictionaryColumns.objectKeys.contains(path) || DictionaryColumns.isReadableKeyPath(path, of: todoEntity)
            var answers: [String] = []
            for context in contexts {
                let answer: String = context.performAndWait {
                    let request = NSFetchRequest<NSDictionary>(entityName: "TodoEntity")
                    request.resultType = .dictionaryResultType
                    request.propertiesToFetch = [path]
                    request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
                    do {
                        let rows = try context.fetch(request)
                        return "rows " + rows.map { row in "\(row[path].map { $0 is NSManagedObjectID ? "id" : "\($0)" } ?? "-")" }.joined(separator: "|")
                    } catch let error as NSError {
                        return "error \(error.domain) \(error.code)"
                    }
                }
                answers.append(answer)
            }
            if !readable {
                #expect(answers.allSatisfy { $0 == "error \(NSCocoaErrorDomain) \(NSCoreDataError)" }, "input \(input) '\(path)': \(answers)")
            } else {
                #expect(Set(answers).count == 1, "input \(input) '\(path)': \(answers)")
            }
        }
    }

    @Test("Key paths are read through the model: relationships lead on, attributes end, operators follow a to-many")
    func keyPathRules() {
        let model = M.todoModel()
        let todo = model.entitiesByName["TodoEntity"]!
        defer { withExtendedLifetime(model) {} }
        for path in ["title", "location.placeName", "tags.@count", "tags.@max.name", "location", "location.todos.@count"] {
            #expect(DictionaryColumns.isReadableKeyPath(path, of: todo), "\(path)")
        }
        for path in ["", "title.", ".title", "title'", "tags.@count\"", "location.@count", "@count", "tags.@sum", "tags.@foo.name",
                     "title.count", "tags.@count.name", "location.placeName.x", "missing", "tags", "tags.name", "location.todos"] {
            #expect(!DictionaryColumns.isReadableKeyPath(path, of: todo), "\(path)")
        }
        // An aggregate's argument may read a to-many relationship.
        for path in ["tags", "tags.name"] {
            #expect(DictionaryColumns.isReadableKeyPath(path, of: todo, allowsToMany: true), "\(path)")
        }
    }

    /// Every error type the library declares, and where it becomes an `NSError` before a public
    /// API returns. A new `Error` type fails this test until it is listed here with its boundary.
    static let declaredErrorTypes: [String: String] = [
        "StoreSaveConflicts": "NSManagedObjectContext.save() resolves it through the merge policy or reports 133020/133021",
        "MappingModelFailure": "MappingModelError.make turns it into the Cocoa file error (259/260/256) that NSMappingModel's loaders throw",
        "InflateError": "ModelFileLoader.loadModelCache wraps it in ModelFileError.corrupt (a Cocoa file error)",
        "PropertyListError": "KeyedArchive, ModelBundle and the store inspection wrap it in Cocoa file errors",
        "Unsupported": "MappingExpressionReader turns ArchivedPredicateFormatter.Unsupported into a mapping error",
        "CastError": "caught where it is thrown: evaluation folds a failed cast to nil, the parser turns it into a PredicateFormatError",
        "ModelCodeGenerationError": "package API of the code generator (the CLI and ocd-modelgen print it)",
        "PredicateTranslationError": "public, and a CustomNSError in NSCocoaErrorDomain (2048)",
        "PredicateFormatError": "public, and a CustomNSError in NSCocoaErrorDomain (2048)",
        "SQLTranslationError": "the SQLite store falls back to memory or wraps it as NSCoreDataError",
    ]

    @Test("Every Error type in the library is accounted for at the public boundary")
    func errorTypesAreAccounted() throws {
        let root = LayerCheck.sourceRoot
        let files = try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil))
        var declared: Set<String> = []
        let pattern = try Regex(#"(?:struct|enum|class)\s+([A-Za-z_][A-Za-z0-9_]*)[^{\n]*:[^{\n]*\bError\b"#)
        for case let url as URL in files where url.pathExtension == "swift" {
            let text = try String(contentsOf: url, encoding: .utf8)
            for match in text.matches(of: pattern) {
                if let name = match.output[1].substring { declared.insert(String(name)) }
            }
        }
        try #require(!declared.isEmpty, "no sources at \(root.path)")
        let unlisted = declared.subtracting(Self.declaredErrorTypes.keys)
        #expect(unlisted.isEmpty, "error types without a documented boundary: \(unlisted.sorted())")
    }
}
