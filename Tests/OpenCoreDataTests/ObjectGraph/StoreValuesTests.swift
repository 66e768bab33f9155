import Foundation
import Testing
@testable import OpenCoreData

/// `StoreValues` replaces `ContiguousArray<StoreValue>` in snapshots: it must behave like an
/// array (value semantics, growth) and free what it holds, whichever way it was built.
@Suite("StoreValues")
struct StoreValuesTests {
    @Test("copies are independent: writing to one leaves the other as it was")
    func copyOnWrite() {
        var first: StoreValues = [.int(1), .string("two"), .null]
        let second = first
        first[1] = .double(2.5)
        first.append(.int(4))
        #expect(Array(second) == [.int(1), .string("two"), .null])
        #expect(Array(first) == [.int(1), .double(2.5), .null, .int(4)])
        #expect(first != second)
        #expect(second == StoreValues([StoreValue.int(1), .string("two"), .null]))
    }

    @Test("appending grows past any reserved capacity and keeps order")
    func appendGrows() {
        var values = StoreValues()
        #expect(values.isEmpty)
        values.reserveCapacity(2)
        for number in 0..<100 { values.append(number.isMultiple(of: 3) ? .string("\(number)") : .int(Int64(number))) }
        #expect(values.count == 100)
        #expect(values[99] == .string("99"))
        #expect(values[98] == .int(98))
        #expect(values.indices == 0..<100)
    }

    @Test("the unsafe initializer writes every value in place")
    func unsafeInitializer() {
        let values = StoreValues(unsafeUninitializedCount: 3) { base in
            for index in 0..<3 { (base + index).initialize(to: .int(Int64(index * 10))) }
            return false
        }
        #expect(Array(values) == [.int(0), .int(10), .int(20)])
        #expect(StoreValues(unsafeUninitializedCount: 0) { _ in false }.isEmpty)
    }

    @Test("values that hold references are released with their buffer, however they were added")
    func releasesReferences() {
        weak var weakEntity: NSEntityDescription?
        do {
            let target = NSEntityDescription()
            target.name = "Target"
            weakEntity = target
            let id = NSManagedObjectID(temporaryFor: target)
            // A numeric buffer comes to hold references through append, subscript, copy and init.
            var values: StoreValues = [.int(3), .null]
            values.append(.objectID(id))
            var copy = values
            copy[1] = .objectIDs([id, id])
            let built = StoreValues(unsafeUninitializedCount: 1) { base in
                base.initialize(to: .objectID(id))
                return true
            }
            #expect(copy.count == 3 && built.count == 1)
            #expect(values[2].holdsReference && !values[0].holdsReference)
        }
        #expect(weakEntity == nil)
    }
}
