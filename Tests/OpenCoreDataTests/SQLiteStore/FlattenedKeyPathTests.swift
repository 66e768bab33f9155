import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// A key path through two to-many relationships (`pets.tags.label`: the labels of every tag of
/// every pet of a person) is one flattened collection, as Apple's stores treat it; both stores
/// answer ANY/ALL/NONE, `@count`, collection operators and SUBQUERY over it the same way.
@Suite("Key paths through two to-many relationships")
struct FlattenedKeyPathTests {
    /// Person —pets→ Pet (one-to-many); Pet —tags→ Tag (many-to-many); Pet —toys→ Toy
    /// (one-to-many); Pet —vet→ Vet (to-one) —assistants→ Assistant (one-to-many).
    static func model() -> NSManagedObjectModel {
        typealias M = TestModels
        let person = M.entity("Person", [M.attribute("name", .stringAttributeType)])
        let pet = M.entity("Pet", [M.attribute("name", .stringAttributeType)])
        let tag = M.entity("Tag", [M.attribute("label", .stringAttributeType), M.attribute("weight", .integer32AttributeType)])
        let toy = M.entity("Toy", [M.attribute("name", .stringAttributeType)])
        let vet = M.entity("Vet", [M.attribute("name", .stringAttributeType)])
        let assistant = M.entity("Assistant", [M.attribute("name", .stringAttributeType)])
        func pair(_ a: NSRelationshipDescription, _ b: NSRelationshipDescription, _ from: NSEntityDescription, _ to: NSEntityDescription) {
            M.inverse(a, b)
            from.properties += [a]
            to.properties += [b]
        }
        pair(M.relationship("pets", to: pet, toMany: true), M.relationship("owner", to: person, toMany: false), person, pet)
        pair(M.relationship("tags", to: tag, toMany: true), M.relationship("pets", to: pet, toMany: true), pet, tag)
        pair(M.relationship("toys", to: toy, toMany: true), M.relationship("pet", to: pet, toMany: false), pet, toy)
        pair(M.relationship("vet", to: vet, toMany: false), M.relationship("patients", to: pet, toMany: true), pet, vet)
        pair(M.relationship("assistants", to: assistant, toMany: true), M.relationship("vet", to: vet, toMany: false), vet, assistant)
        let model = NSManagedObjectModel()
        model.entities = [person, pet, tag, toy, vet, assistant]
        return model
    }

    /// Ann: Rex (good, loud; a ball; vet Vera with Zoe), Tom (good). Bob: Max (bad; vet Vic
    /// with Yan). Cy: no pets. Dee: Fido (no tags), Spot (good). `good` is shared by three pets.
    static func populate(_ context: NSManagedObjectContext) throws {
        try context.performAndWait {
            func insert(_ entity: String, _ values: [String: Any]) -> NSManagedObject {
                let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
                for (key, value) in values { object.setValue(value, forKey: key) }
                return object
            }
            let good = insert("Tag", ["label": "good", "weight": 1])
            let loud = insert("Tag", ["label": "loud", "weight": 2])
            let bad = insert("Tag", ["label": "bad", "weight": 3])
            let vera = insert("Vet", ["name": "Vera", "assistants": NSSet(array: [insert("Assistant", ["name": "Zoe"])])])
            let vic = insert("Vet", ["name": "Vic", "assistants": NSSet(array: [insert("Assistant", ["name": "Yan"])])])
            func pet(_ name: String, _ tags: [NSManagedObject], toys: [String] = [], vet: NSManagedObject? = nil) -> NSManagedObject {
                let pet = insert("Pet", ["name": name, "tags": NSSet(array: tags)])
                pet.setValue(NSSet(array: toys.map { insert("Toy", ["name": $0]) }), forKey: "toys")
                pet.setValue(vet, forKey: "vet")
                return pet
            }
            let owners: [(String, [NSManagedObject])] = [
                ("Ann", [pet("Rex", [good, loud], toys: ["ball"], vet: vera), pet("Tom", [good])]),
                ("Bob", [pet("Max", [bad], vet: vic)]),
                ("Cy", []),
                ("Dee", [pet("Fido", []), pet("Spot", [good])]),
            ]
            for (name, pets) in owners { _ = insert("Person", ["name": name, "pets": NSSet(array: pets)]) }
            try context.save()
        }
    }

    static let cases: [(format: String, names: [String])] = [
        ("ANY pets.tags.label == 'good'", ["Ann", "Dee"]),
        ("ALL pets.tags.label == 'good'", ["Cy", "Dee"]),  // ALL over no tags holds
        ("NONE pets.tags.label == 'good'", ["Bob", "Cy"]),
        ("pets.tags.@count == 2", ["Ann"]),  // good and loud: the shared tag counts once
        ("pets.tags.@count == 0", ["Cy"]),
        ("pets.tags.@max.weight == 3", ["Bob"]),
        ("pets.tags.@sum.weight == 3", ["Ann", "Bob"]),
        ("SUBQUERY(pets.tags, $t, $t.weight > 1).@count > 0", ["Ann", "Bob"]),
        ("SUBQUERY(pets, $p, ANY $p.tags.label == 'good').@count == 2", ["Ann"]),
        ("ANY pets.toys.name == 'ball'", ["Ann"]),
        ("ANY pets.vet.assistants.name == 'Zoe'", ["Ann"]),
        ("ANY pets.tags.pets.name == 'Spot'", ["Ann", "Dee"]),  // three to-many steps
    ]

    @Test("ANY/ALL/NONE, @count, operators and SUBQUERY over a flattened path", arguments: StoreKind.allCases)
    func flattened(_ kind: StoreKind) throws {
        let context = try kind.context(Self.model())
        try Self.populate(context)
        try context.performAndWait {
            for (format, names) in Self.cases {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
                request.predicate = try NSPredicate.parse(format: format)
                request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
                #expect(try context.fetch(request).map { $0.value(forKey: "name") as? String ?? "?" } == names, "\(format) on \(kind)")
                #expect(try context.count(for: request) == names.count, "\(format) on \(kind)")
            }
        }
    }

    @Test("SQLite lowers flattened paths instead of evaluating them in memory")
    func loweredInSQL() throws {
        let context = try TestModels.sqliteContext(Self.model())
        let coordinator = try #require(context.persistentStoreCoordinator)
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["Person"])
        for (format, _) in Self.cases {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
            request.predicate = try NSPredicate.parse(format: format)
            #expect(coordinator.evaluatesNatively(StoreFetchRequest(request, entity: entity, paging: true), affectedStores: nil), "\(format)")
        }
    }

    @Test("Golden SQL: the second relationship's destinations, as one set, for every element of the first")
    func goldenSQL() throws {
        let model = Self.model()
        model.freeze()
        let schema = SQLStoreSchema(model: model)
        let predicate = try NSPredicate.parse(format: "ANY pets.tags.label == 'good'")
        let query = SQLFetchQuery(entity: model.entitiesByName["Person"]!, predicate: predicate)
        let sql = try SQLQueryBuilder(schema: schema, dialect: SQLiteDialect()).select(query, columns: [SQLFragment("t0.Z_PK")]).render(in: SQLiteDialect())
        #expect(sql.text == "SELECT t0.Z_PK FROM ZPERSON t0 WHERE EXISTS (SELECT 1 FROM ZTAG t4 WHERE (t4.Z_PK IN (SELECT t2.Z_PK FROM ZPET t1, Z_3TAGS j3 JOIN ZTAG t2 ON t2.Z_PK = j3.Z_4TAGS WHERE (t1.ZOWNER = t0.Z_PK) AND (j3.Z_3PETS = t1.Z_PK))) AND (t4.ZLABEL IS NOT NULL) AND (t4.ZLABEL = ?))")
        #expect(sql.arguments == [.text("good")])
    }
}
