import Foundation
import Testing
@testable import OpenCoreData

/// The context's identity map is a hand-written hash table; it must behave as a dictionary.
@Suite("Identity map")
struct IdentityMapTests {
    @Test("Random inserts, replacements and removals match a Dictionary")
    func matchesDictionary() {
        let model = TestModels.personModel()
        let entities = model.entities
        let handles = [StoreHandle(identifier: "A"), StoreHandle(identifier: "B")]
        let objects = (0..<8).map { _ in NSManagedObject(entity: entities[0], insertInto: nil) }
        var map = IdentityMap()
        var expected: [ObjectKey: Int] = [:]
        var generator = SystemRandomNumberGenerator()
        for step in 0..<60_000 {
            // Few distinct keys, so removals and replacements hit present keys and runs collide.
            let key = NSManagedObjectID(entity: entities.randomElement(using: &generator)!,
                                        primaryKey: Int64.random(in: 1...700, using: &generator),
                                        handle: handles.randomElement(using: &generator)!).key
            if step % 5_003 == 0 {
                // Reserving room rehashes in place and keeps every entry.
                map.reserveCapacity(map.count + Int.random(in: 0...3_000, using: &generator))
            }
            if Int.random(in: 0..<3, using: &generator) == 0 {
                map[key] = nil
                expected[key] = nil
            } else {
                let index = Int.random(in: 0..<objects.count, using: &generator)
                map[key] = Unmanaged.passUnretained(objects[index])
                expected[key] = index
            }
            if step % 997 == 0 {
                #expect(map.count == expected.count)
                for (key, index) in expected {
                    #expect(map[key]?.toOpaque() == Unmanaged.passUnretained(objects[index]).toOpaque())
                }
                #expect(map.objects.count == expected.count)
            }
        }
        for key in Array(expected.keys) {
            map[key] = nil
        }
        #expect(map.isEmpty)
    }

    @Test("Keys that pile up on one slot (as a crafted store could choose) still work")
    func pathologicalKeys() {
        let entity = TestModels.personModel().entities[0]
        let handle = StoreHandle(identifier: "A")
        let object = NSManagedObject(entity: entity, insertInto: nil)
        var map = IdentityMap()
        let keys = (1...5_000).map { NSManagedObjectID(entity: entity, primaryKey: Int64($0) << 20, handle: handle).key }
        for key in keys { map[key] = Unmanaged.passUnretained(object) }
        #expect(map.count == keys.count)
        for key in keys.shuffled() where key.primaryKey % 3 == 0 { map[key] = nil }
        for key in keys { #expect((map[key] != nil) == (key.primaryKey % 3 != 0)) }
    }

    @Test("Runs of consecutive keys whose home slots overlap (temporary and permanent IDs of one save, two entities) are all found and removed")
    func overlappingRuns() {
        let entities = TestModels.personModel().entities
        let handles = [StoreHandle(identifier: "A"), StoreHandle(identifier: "B")]
        let object = NSManagedObject(entity: entities[0], insertInto: nil)
        var map = IdentityMap()
        // Several key runs, inserted alternately, so that whichever runs share home slots do so
        // while both are being filled.
        let runs = handles.flatMap { handle in
            entities.map { entity in (1...6_000).map { NSManagedObjectID(entity: entity, primaryKey: Int64($0), handle: handle).key } }
        }
        for index in 0..<6_000 {
            for run in runs { map[run[index]] = Unmanaged.passUnretained(object) }
        }
        let all = runs.flatMap { $0 }
        #expect(map.count == Set(all).count)
        for key in all { #expect(map[key] != nil) }
        for key in runs[0] { map[key] = nil }
        for key in runs[0] { #expect(map[key] == nil) }
        for key in runs.dropFirst().joined() { #expect(map[key] != nil) }
    }
}
