import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// `Z_MODELCACHE` as OpenCoreData writes it: raw DEFLATE of a keyed archive of the store's
/// model with Apple's classes and keys, read back by the same reader that reads Apple's caches.
@Suite("Model cache writing")
struct ModelCacheWriteTests {
    // MARK: - Helpers

    /// Archives, compresses, inflates and decodes a model.
    static func roundTrip(_ model: NSManagedObjectModel) throws -> NSManagedObjectModel {
        try NSManagedObjectModel.fromModelCache(ModelCacheArchiver.modelCache(model))
    }

    /// Everything the summary compares, plus what it leaves out: predicates, expressions,
    /// fetch requests, user info, configurations, version identifiers.
    static func details(_ model: NSManagedObjectModel) -> [String] {
        var lines = model.summary(includeClassNames: true).map(normalizedDefault)
        for entity in model.entities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) {
            lines.append("\(entity.name ?? "") userInfo=\(describe(entity.userInfo)) compound=\(entity.compoundIndexes.map { $0.map { "\($0)" } })")
            for property in entity.ownProperties.sorted(by: { $0.name < $1.name }) {
                var line = "  \(entity.name ?? "").\(property.name) readOnly=\(property.isReadOnly) userInfo=\(describe(property.userInfo))"
                line += " rules=\(property.validationPredicates.map { normalized($0.predicateFormat) }) warnings=\(property.validationWarnings.map { "\($0)" })"
                if let attribute = property as? NSAttributeDescription {
                    line += " default=\(defaultText(attribute)) external=\(attribute.allowsExternalBinaryDataStorage)"
                }
                if let derived = property as? NSDerivedAttributeDescription {
                    line += " derivation=\(derived.derivationExpression?.description ?? "-")"
                }
                if let fetched = property as? NSFetchedPropertyDescription {
                    line += " fetch=\(describe(fetched.fetchRequest))"
                }
                lines.append(line)
            }
        }
        for name in model.fetchRequestTemplatesByName.keys.sorted() {
            lines.append("template \(name) \(describe(model.fetchRequestTemplatesByName[name]))")
        }
        for name in model.configurations {
            lines.append("configuration \(name) \((model.entities(forConfigurationName: name) ?? []).compactMap(\.name).sorted())")
        }
        lines.append("identifiers \(model.versionIdentifiers.map { "\($0)" }.sorted())")
        return lines
    }

    /// A default value by what it means: a model file gives Swift values (`0.0`, `false`), an
    /// archive gives `NSNumber`s (`0`), as Apple's unarchiver does.
    static func defaultText(_ attribute: NSAttributeDescription) -> String {
        guard let value = attribute.defaultValue else { return "-" }
        if attribute.attributeType == .booleanAttributeType, let number = value as? NSNumber { return "\(number.boolValue)" }
        if attribute.attributeType.isNumeric, attribute.attributeType != .decimalAttributeType,
           let double = AttributeConversion.double(value) { return "\(double)" }
        return "\(value)"
    }

    /// The summary line without its `default=` (compared by ``defaultText(_:)`` instead).
    static func normalizedDefault(_ line: String) -> String {
        line.replacing(#/ default=.* preserve=/#, with: " preserve=")
    }

    /// The archive reader turns a decimal constant into a plain number (`CAST("4.5", "NSDecimalNumber")`
    /// reads back as `4.5`), for Apple's archives too; the comparison means the same.
    static func normalized(_ format: String) -> String {
        format.replacing(#/CAST\("([^"]*)", "NSDecimalNumber"\)/#) { String($0.output.1) }
    }

    static func describe(_ info: [AnyHashable: Any]?) -> String {
        (info ?? [:]).map { "\($0.key)=\($0.value)" }.sorted().joined(separator: ",")
    }

    static func describe(_ request: NSFetchRequest<NSFetchRequestResult>?) -> String {
        guard let request else { return "-" }
        let sorts = (request.sortDescriptors ?? []).map { "\($0.key ?? "")\($0.ascending ? "+" : "-")" }
        return "\(request.entityName ?? "-") \(request.predicate?.predicateFormat ?? "-") \(sorts) limit=\(request.fetchLimit)"
    }

    /// Expects the round trip to keep the model: same details, version hashes and checksum.
    static func expectSameModel(_ model: NSManagedObjectModel, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let back = try roundTrip(model)
        #expect(back.entityVersionHashesByName == model.entityVersionHashesByName, "\(label)", sourceLocation: sourceLocation)
        #expect(back.versionChecksum == model.versionChecksum, "\(label)", sourceLocation: sourceLocation)
        let difference = summaryDifference(details(model), details(back))
        #expect(difference.isEmpty, "\(label):\n\(difference.joined(separator: "\n"))", sourceLocation: sourceLocation)
    }

    // MARK: - Round trips

    @Test("Models built in code read back with the same entities, properties, version hashes and versionChecksum")
    func codeModels() throws {
        let models: [(String, NSManagedObjectModel)] = [
            ("todo", TestModels.todoModel()), ("person", TestModels.personModel()), ("uniqueUser", TestModels.uniqueUserModel()),
            ("ordered", TestModels.orderedModel()), ("vehicle", TestModels.vehicleModel()),
            ("deleteRule", TestModels.deleteRuleModel(rule: .cascadeDeleteRule)), ("everything", Self.everythingModel()),
        ]
        for (label, model) in models { try Self.expectSameModel(model, label) }
    }

    @Test("Every fixture model (source, compiled, and each Apple store's own cache) reads back with the same hashes and checksum",
          .enabled(if: ModelFixtures.enabled, "shared/fixtures is missing"))
    func fixtureModels() throws {
        var checked = 0
        for url in try ModelFixtures.allSourceModels() {
            // A few fixture models are deliberately invalid or legacy; those that load must round-trip.
            guard let model = try? NSManagedObjectModel.load(contentsOf: url) else { continue }
            try Self.expectSameModel(model, url.path)
            checked += 1
        }
        let root = try ModelFixtures.require()
        for compiled in ModelFixtures.compiledModels {
            try Self.expectSameModel(try NSManagedObjectModel.load(contentsOf: root.appendingPathComponent(compiled.momd)), compiled.momd)
            checked += 1
        }
        for store in ModelFixtures.allStores {
            let cache = try #require(try ModelFixtures.storeContents(try ModelFixtures.store(store)).modelCache)
            try Self.expectSameModel(try NSManagedObjectModel.fromModelCache(cache), store)
            checked += 1
        }
        #expect(checked > 20)
    }

    // MARK: - Apple's shape

    @Test("The archive uses Apple's classes and keys: NSKnownKeysDictionary1 entities, renaming identifiers defaulting to names, _P and NSFlagsKey")
    func appleShape() throws {
        let model = TestModels.vehicleModel()
        let archive = try KeyedArchive(data: ModelCacheArchiver.archive(model), location: ModelFileLocation(url: nil))
        let root = try archive.root()
        #expect(root.className == "NSManagedObjectModel")
        guard case .object(let entities) = try root.value("NSEntities") else { Issue.record("NSEntities is not an object"); return }
        #expect(entities.classChain == ["NSKnownKeysDictionary1", "NSKnownKeysDictionary", "NSMutableDictionary", "NSDictionary", "NSObject"])
        #expect(try entities.integer("version") == 1)
        #expect(try entities.string("emptyToken") == "__empty_slot_token_4c24_98dc_ac1e_b773__")
        let mapping = try #require(try entities.object("searchMapping"))
        #expect(mapping.className == "NSKnownKeysMappingStrategy1")
        let names = try entities.dictionaryEntries().compactMap { $0.key.stringValue }
        #expect(names == model.entities.compactMap(\.name).sorted())
        #expect(try mapping.integer("length") == names.count)
        #expect(root.has("NSFetchRequestTemplates") && root.has("NSVersionIdentifiers"))

        for entry in try entities.dictionaryEntries() {
            guard case .object(let entity) = entry.value else { Issue.record("not an entity"); continue }
            #expect(entity.className == "NSEntityDescription")
            #expect(try entity.string("NSRenamingIdentifier") == entry.key.stringValue)
            #expect(try entity.object("NSManagedObjectModel")?.index == root.index)
            // Apple (framework 1044 and later) leaves out empty index lists.
            #expect(!entity.has("NSFetchIndexDescriptions") && !entity.has("NSCompoundIndexes"))
            for key in ["NSEntityName", "NSClassNameForEntity", "NSSuperentity", "NSSubentities", "NSProperties", "NSUserInfo",
                        "NSVersionHashModifier", "NSRenamingIdentifier"] {
                #expect(entity.has(key), "\(entry.key.stringValue ?? "") lacks \(key)")
            }
            let modelEntity = try #require(model.entitiesByName[entry.key.stringValue ?? ""])
            // Every property, inherited ones too, as an object whose NSEntity is this entity.
            let properties = try entity.entries("NSProperties")
            #expect(properties.compactMap { $0.key.stringValue }.sorted() == modelEntity.properties.map(\.name).sorted())
            for property in properties {
                guard case .object(let object) = property.value else { continue }
                #expect(try object.object("NSEntity")?.index == entity.index)
                #expect(try object.string("NSRenamingIdentifier") == property.key.stringValue)
                let expected = try #require(modelEntity.propertiesByName[property.key.stringValue ?? ""])
                #expect(try object.integer("_P") == (expected.isOptional ? 243 : 241))
                if object.className == "NSAttributeDescription" {
                    #expect(try object.integer("NSFlagsKey") == 0)
                    #expect(object.has("NSAttributeType") && object.has("NSDefaultValue") && object.has("NSValueTransformerName"))
                } else {
                    #expect(object.className == "NSRelationshipDescription")
                    for key in ["NSDestinationEntity", "_NSDestinationEntityName", "NSInverseRelationship", "_NSInverseRelationshipName",
                                "NSMinCount", "NSMaxCount", "NSDeleteRule"] {
                        #expect(object.has(key), "\(property.key.stringValue ?? "") lacks \(key)")
                    }
                }
            }
        }
    }

    // MARK: - Stores

    @Test("A new SQLite store has one Z_MODELCACHE row that decodes to its model; the store reopens")
    func newStoreHasCache() throws {
        let url = TestStoreFiles.newStoreURL()
        let model = TestModels.vehicleModel()
        let context = try TestModels.sqliteContext(model, url: url)
        let coordinator = try #require(context.persistentStoreCoordinator)
        for store in coordinator.persistentStores { try coordinator.remove(store) }

        let queue = try DatabaseQueue(path: url.path)
        let (rows, content, metadataPlist) = try queue.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM Z_MODELCACHE") ?? 0,
             try Data.fetchOne(db, sql: "SELECT Z_CONTENT FROM Z_MODELCACHE"),
             try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA"))
        }
        #expect(rows == 1)
        let cached = try NSManagedObjectModel.fromModelCache(try #require(content))
        let metadata = try SQLiteMetadata.decode(try #require(metadataPlist))
        #expect(NSManagedObjectModel.versionHashes(inStoreMetadata: metadata) == cached.entityVersionHashesByName)
        #expect(cached.versionChecksum == metadata[NSStoreModelVersionChecksumKey] as? String)
        #expect(try queue.read { db in try SQLiteModelCache.read(in: db) }?.entityVersionHashesByName == model.entityVersionHashesByName)
        try queue.close()

        let reopened = NSPersistentStoreCoordinator(managedObjectModel: model)
        try reopened.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        #expect(reopened.persistentStores.count == 1)
    }

    @Test("SQLiteModelCache.write replaces the cached model in place, and creates the table in a store that has none")
    func rewrite() throws {
        let url = TestStoreFiles.newStoreURL()
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            try SQLiteModelCache.write(TestModels.todoModel(), in: db)
            try SQLiteModelCache.write(TestModels.vehicleModel(), in: db)
        }
        try queue.read { db in
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM Z_MODELCACHE") == 1)
            let cached = try #require(try SQLiteModelCache.read(in: db))
            #expect(cached.entityVersionHashesByName == TestModels.vehicleModel().entityVersionHashesByName)
        }
        try queue.close()
        let empty = try DatabaseQueue(path: TestStoreFiles.newStoreURL().path)
        #expect(try empty.read { db in try SQLiteModelCache.read(in: db) } == nil)
        try empty.close()
    }

    // MARK: - A model with every archived feature

    /// Inheritance, an abstract parent, every flag, user info, defaults, validation rules, a
    /// derived attribute, a fetched property, a fetch index, constraints, compound indexes, an
    /// ordered and an unbounded to-many, external storage, history preservation, a template,
    /// a configuration and version identifiers.
    static func everythingModel() -> NSManagedObjectModel {
        let item = TestModels.entity("Item", [])
        item.isAbstract = true
        item.userInfo = ["kind": "base"]
        item.versionHashModifier = "v2"
        let itemName = TestModels.attribute("name", .stringAttributeType, optional: false, defaultValue: "untitled")
        itemName.setValidationPredicates([NSPredicate(format: "length >= 2"), NSPredicate(format: "SELF BEGINSWITH[c] %@", "a")],
                                         withValidationWarnings: ["too short", "must start with a"])
        itemName.userInfo = ["note": "the name"]
        itemName.renamingIdentifier = "title"
        let created = TestModels.attribute("created", .dateAttributeType, defaultValue: Date(timeIntervalSinceReferenceDate: 100))
        created.preservesValueInHistoryOnDeletion = true
        item.properties = [itemName, created]

        let book = TestModels.entity("Book", className: "Book", [])
        let pagesCount = NSDerivedAttributeDescription()
        pagesCount.name = "pagesCount"
        pagesCount.attributeType = .integer64AttributeType
        pagesCount.derivationExpression = NSExpression(format: "pages.@count")
        let price = TestModels.attribute("price", .decimalAttributeType, defaultValue: Decimal(string: "9.99"))
        let flag = TestModels.attribute("inPrint", .booleanAttributeType, defaultValue: true)
        let cover = TestModels.attribute("cover", .binaryDataAttributeType)
        cover.allowsExternalBinaryDataStorage = true
        let cache = TestModels.attribute("cache", .stringAttributeType, transient: true)
        let rating = TestModels.attribute("rating", .doubleAttributeType, defaultValue: 2.5)
        rating.versionHashModifier = "scaled"
        rating.isIndexed = true
        book.properties = [pagesCount, price, flag, cover, cache, rating]
        item.subentities = [book]

        let page = TestModels.entity("Page", [TestModels.attribute("number", .integer32AttributeType, optional: false, defaultValue: 1)])
        let pages = TestModels.relationship("pages", to: page, toMany: true)
        pages.isOrdered = true
        pages.deleteRule = .cascadeDeleteRule
        let pageBook = TestModels.relationship("book", to: book, toMany: false)
        TestModels.inverse(pages, pageBook)
        let related = TestModels.relationship("related", to: book, toMany: true)
        related.maxCount = Int.max
        related.minCount = 1
        let similar = NSFetchedPropertyDescription()
        similar.name = "similar"
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Book")
        request.predicate = NSPredicate(format: "name == $FETCH_SOURCE.name AND rating > 3")
        request.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: false)]
        similar.fetchRequest = request
        book.properties += [pages, related, similar]
        page.properties += [pageBook]
        book.uniquenessConstraints = [["price", "rating"]]
        book.compoundIndexes = [["price", "rating"]]
        let index = NSFetchIndexDescription(name: "byRating", elements: [NSFetchIndexElementDescription(property: rating, collationType: .binary)])
        book.indexes = [index]

        let model = NSManagedObjectModel()
        model.entities = [item, book, page]
        model.versionIdentifiers = ["2", "beta"]
        model.setEntities([book, page], forConfigurationName: "Library")
        let template = NSFetchRequest<NSFetchRequestResult>(entityName: "Page")
        template.predicate = NSPredicate(format: "number BETWEEN {1, 10} OR book.name CONTAINS[cd] 'x'")
        template.fetchLimit = 5
        model.setFetchRequestTemplate(template, forName: "FirstPages")
        return model
    }
}
