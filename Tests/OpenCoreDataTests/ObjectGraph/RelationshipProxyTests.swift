import Foundation
import Testing
@testable import OpenCoreData

/// `mutableOrderedSetValue(forKey:)` and `mutableSetValue(forKey:)` behave as the NSOrderedSet
/// and NSSet they are, for every read and edit, and stay live: swift-corelibs-foundation answers
/// many reads (`array`, `firstObject`, iteration, `description`) from storage a subclass cannot
/// override, which the proxies once left empty.
@Suite("Relationship proxies: every NSOrderedSet and NSSet read and edit")
struct RelationshipProxyTests {
    /// Folder.pinned (ordered, inverse Note.pinnedIn) with notes n0…n4, the first four pinned.
    static func graph(_ context: NSManagedObjectContext) -> (NSManagedObject, [NSManagedObject], NSMutableOrderedSet) {
        let folder = ContextUndoModel.insert("Folder", "f", context)
        let notes = (0..<5).map { ContextUndoModel.insert("Note", "n\($0)", context) }
        let pinned = folder.mutableOrderedSetValue(forKey: "pinned")
        for note in notes.prefix(4) { pinned.add(note) }
        return (folder, notes, pinned)
    }

    static func uids(_ objects: [Any]) -> [String] {
        objects.map { ($0 as? NSManagedObject)?.value(forKey: "uid") as? String ?? "?" }
    }

    /// The relationship as the object answers it.
    static func stored(_ folder: NSManagedObject) -> [String] {
        uids((folder.value(forKey: "pinned") as? NSOrderedSet)?.array ?? [])
    }

    @Test("Reads Foundation answers from its own storage see the relationship", arguments: StoreKind.allCases)
    func reads(_ kind: StoreKind) throws {
        let context = try kind.context(ContextUndoModel.model())
        context.performAndWait {
            let (folder, notes, pinned) = Self.graph(context)
            let order = ["n0", "n1", "n2", "n3"]
            #expect(Self.uids(pinned.array) == order)
            #expect(pinned.set == Set(notes.prefix(4).map { $0 as AnyHashable }))
            #expect(pinned.firstObject as? NSManagedObject === notes[0])
            #expect(pinned.lastObject as? NSManagedObject === notes[3])
            #expect(Self.uids(Array(pinned)) == order)
            #expect(Self.uids(pinned.map { $0 }) == order)
            #expect(Self.uids(pinned.objectEnumerator().allObjects) == order)
            #expect(Self.uids(pinned.reverseObjectEnumerator().allObjects) == order.reversed())
            #expect(Self.uids(pinned.reversed.array) == order.reversed())
            #expect(Self.uids(pinned.objects(at: IndexSet([1, 3]))) == ["n1", "n3"])
            #expect(pinned.index(ofObjectPassingTest: { object, _, _ in object as? NSManagedObject === notes[2] }) == 2)
            var visited: [Any] = []
            pinned.enumerateObjects { object, _, _ in visited.append(object) }
            #expect(Self.uids(visited) == order)
            #expect(Self.uids((pinned.copy() as? NSOrderedSet)?.array ?? []) == order)
            #expect(Self.uids((pinned.mutableCopy() as? NSMutableOrderedSet)?.array ?? []) == order)
            #expect(Self.uids(NSOrderedSet(orderedSet: pinned).array) == order)
            #expect(pinned.isEqual(to: NSOrderedSet(array: Array(notes.prefix(4)))))
            #expect(pinned.contains(notes[1]) && !pinned.contains(notes[4]))
            #expect(pinned.isSubset(of: NSOrderedSet(array: notes)))
            #expect(pinned.intersects(NSOrderedSet(array: [notes[3], notes[4]])))
            #expect(pinned.description.components(separatedBy: "\n").count == 6)  // "(", four members, ")"
            #expect(Self.uids(pinned.sortedArray(using: [NSSortDescriptor(key: "uid", ascending: false)])) == order.reversed())

            // A proxy made before the relationship changes another way (here through the inverse)
            // reads the change.
            notes[4].setValue(folder, forKey: "pinnedIn")
            #expect(Self.uids(pinned.array) == order + ["n4"])
            #expect(pinned.lastObject as? NSManagedObject === notes[4])
            notes[0].setValue(nil, forKey: "pinnedIn")
            #expect(Self.uids(Array(pinned)) == ["n1", "n2", "n3", "n4"])
        }
    }

    @Test("Edits change the relationship, its inverse and the proxy's reads alike", arguments: StoreKind.allCases)
    func edits(_ kind: StoreKind) throws {
        let context = try kind.context(ContextUndoModel.model())
        context.performAndWait {
            let (folder, notes, pinned) = Self.graph(context)
            func expectState(_ expected: [String], _ comment: Comment) {
                #expect(Self.stored(folder) == expected, comment)
                #expect(Self.uids(pinned.array) == expected, comment)
                #expect(Self.uids(Array(pinned)) == expected, comment)
                for note in notes {
                    let member = expected.contains(note.value(forKey: "uid") as? String ?? "")
                    #expect((note.value(forKey: "pinnedIn") as? NSManagedObject === folder) == member, comment)
                }
            }
            expectState(["n0", "n1", "n2", "n3"], "start")
            pinned.add(notes[2])
            pinned.insert(notes[1], at: 0)
            expectState(["n0", "n1", "n2", "n3"], "adding or inserting a member changes nothing, as NSMutableOrderedSet")
            pinned.insert([notes[4]], at: IndexSet(integer: 1))
            expectState(["n0", "n4", "n1", "n2", "n3"], "insert(_:at: IndexSet)")
            pinned.removeObjects(at: IndexSet([0, 2]))
            expectState(["n4", "n2", "n3"], "removeObjects(at:)")
            pinned.removeObjects(in: [notes[4]])
            expectState(["n2", "n3"], "removeObjects(in:)")
            pinned.union(NSOrderedSet(array: [notes[0], notes[3], notes[1]]))
            expectState(["n2", "n3", "n0", "n1"], "union")
            pinned.minus(NSOrderedSet(array: [notes[3]]))
            expectState(["n2", "n0", "n1"], "minus")
            pinned.intersect(NSOrderedSet(array: [notes[0], notes[1], notes[4]]))
            expectState(["n0", "n1"], "intersect")
            pinned.addObjects(from: [notes[4], notes[2]])
            expectState(["n0", "n1", "n4", "n2"], "addObjects(from:)")
            pinned.replaceObject(at: 1, with: notes[3])
            expectState(["n0", "n3", "n4", "n2"], "replaceObject(at:with:)")
            pinned.exchangeObject(at: 0, withObjectAt: 3)
            expectState(["n2", "n3", "n4", "n0"], "exchangeObject")
            pinned.moveObjects(at: IndexSet(integer: 3), to: 0)
            expectState(["n0", "n2", "n3", "n4"], "moveObjects")
            pinned.sort(using: [NSSortDescriptor(key: "uid", ascending: false)])
            expectState(["n4", "n3", "n2", "n0"], "sort(using:)")
            pinned.sort { lhs, rhs in
                let left = (lhs as? NSManagedObject)?.value(forKey: "uid") as? String ?? ""
                let right = (rhs as? NSManagedObject)?.value(forKey: "uid") as? String ?? ""
                return left < right ? .orderedAscending : (left > right ? .orderedDescending : .orderedSame)
            }
            expectState(["n0", "n2", "n3", "n4"], "sort(comparator:)")
            pinned.removeObject(at: 1)
            expectState(["n0", "n3", "n4"], "removeObject(at:)")
            pinned.removeAllObjects()
            expectState([], "removeAllObjects")
            #expect(pinned.firstObject == nil && pinned.array.isEmpty)
        }
    }

    @Test("What generated accessors edit through changes the relationship without a readable mirror")
    func accessorEditor() throws {
        let context = try StoreKind.inMemory.context(ContextUndoModel.model())
        context.performAndWait {
            let folder = ContextUndoModel.insert("Folder", "f", context)
            let notes = (0..<3).map { ContextUndoModel.insert("Note", "n\($0)", context) }
            for note in notes { folder._orderedRelationshipEditor(forKey: "pinned").add(note) }
            folder._orderedRelationshipEditor(forKey: "pinned").insert(notes[2], at: 0)
            folder._orderedRelationshipEditor(forKey: "pinned").removeObject(at: 0)
            #expect(Self.stored(folder) == ["n1", "n2"])
            #expect(notes[0].value(forKey: "pinnedIn") == nil)
            #expect(notes[2].value(forKey: "pinnedIn") as? NSManagedObject === folder)
            #expect(folder.mutableOrderedSetValue(forKey: "pinned").count == 2)
        }
    }

    @Test("mutableSetValue(forKey:) reads, describes and edits as an NSSet", arguments: StoreKind.allCases)
    func unorderedSet(_ kind: StoreKind) throws {
        let context = try kind.context(ContextUndoModel.model())
        context.performAndWait {
            let folder = ContextUndoModel.insert("Folder", "f", context)
            let notes = (0..<4).map { ContextUndoModel.insert("Note", "n\($0)", context) }
            let members = folder.mutableSetValue(forKey: "notes")
            for note in notes { members.add(note) }
            #expect(Array(members).count == 4)
            #expect(members.allObjects.count == 4)
            #expect(members.anyObject() != nil)
            #expect(members.isEqual(to: Set(notes.map { $0 as AnyHashable })))
            #expect((members.copy() as? NSSet)?.count == 4)
            #expect(members.description.components(separatedBy: "\n").count == 6)
            #expect(Self.uids(members.sortedArray(using: [NSSortDescriptor(key: "uid", ascending: true)])) == ["n0", "n1", "n2", "n3"])
            members.minus(Set([notes[0] as AnyHashable]))
            members.intersect(Set([notes[1] as AnyHashable, notes[2] as AnyHashable]))
            #expect(Set(Self.uids(members.allObjects)) == ["n1", "n2"])
            #expect(notes[0].value(forKey: "folder") == nil && notes[3].value(forKey: "folder") == nil)
            #expect(notes[1].value(forKey: "folder") as? NSManagedObject === folder)
            members.removeAllObjects()
            #expect(members.count == 0 && (folder.value(forKey: "notes") as? Set<NSManagedObject>)?.isEmpty == true)
        }
    }

    @Test("Key paths through to-many relationships take collection operators; setValuesForKeys sets several keys", arguments: StoreKind.allCases)
    func collectionKeyPaths(_ kind: StoreKind) throws {
        let context = try kind.context(ContextUndoModel.model())
        context.performAndWait {
            let folder = ContextUndoModel.insert("Folder", "f", context)
            for (index, score) in [5, 1, 9].enumerated() {
                let note = ContextUndoModel.insert("Note", "n\(index)", context)
                note.setValuesForKeys(["score": NSNumber(value: score), "title": NSNull(), "folder": folder])
                #expect(note.value(forKey: "title") == nil)
            }
            #expect((folder.value(forKeyPath: "notes.@count") as? NSNumber)?.intValue == 3)
            #expect((folder.value(forKeyPath: "notes.@sum.score") as? NSNumber)?.intValue == 15)
            #expect((folder.value(forKeyPath: "notes.@max.score") as? NSNumber)?.intValue == 9)
            #expect((folder.value(forKeyPath: "notes.@min.score") as? NSNumber)?.intValue == 1)
            #expect((folder.value(forKeyPath: "notes.@avg.score") as? NSNumber)?.intValue == 5)
            let uids = folder.value(forKeyPath: "notes.uid")
            #expect((uids as? NSSet)?.count == 3 || (uids as? Set<AnyHashable>)?.count == 3)
            #expect((folder.value(forKeyPath: "pinned.@count") as? NSNumber)?.intValue == 0)
        }
    }

    @Test("sortedArray(using:) and sort(using:) of Foundation's collections take OpenCoreData's sort descriptors")
    func foundationSorting() {
        let people: [NSDictionary] = [["name": "b", "age": 3], ["name": "a", "age": 3], ["name": "c", "age": 1]]
        let byAge = [NSSortDescriptor(key: "age", ascending: true), NSSortDescriptor(key: "name", ascending: false)]
        func names(_ values: [Any]) -> [String] { values.compactMap { ($0 as? NSDictionary)?["name"] as? String } }
        #expect(names(NSArray(array: people).sortedArray(using: byAge)) == ["c", "b", "a"])
        #expect(names(NSSet(array: people).sortedArray(using: byAge)) == ["c", "b", "a"])
        #expect(names(NSOrderedSet(array: people).sortedArray(using: byAge)) == ["c", "b", "a"])
        let mutable = NSMutableArray(array: people)
        mutable.sort(using: [NSSortDescriptor(key: "name", ascending: true)])
        #expect(names(Array(mutable)) == ["a", "b", "c"])
        let ordered = NSMutableOrderedSet(array: people)
        ordered.sort(using: [NSSortDescriptor(key: "name", ascending: false)])
        #expect(names(ordered.array) == ["c", "b", "a"])
    }
}
