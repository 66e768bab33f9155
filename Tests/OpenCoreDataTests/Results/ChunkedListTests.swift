import Foundation
import Testing
@testable import OpenCoreData

/// The chunked list a fetched results controller keeps its results and sections in: random
/// inserts, removals and weight changes, checked after every step against a plain array.
@Suite("ChunkedList: the results' and sections' store")
struct ChunkedListTests {
    struct Weighted: ChunkWeighted, Equatable {
        var value: Int
        var weight: Int
        var chunkWeight: Int { weight }
    }

    /// Every query the controller makes, answered by the array the list should equal.
    static func check(_ list: ChunkedList<Weighted>, _ model: [Weighted], step: Int) {
        #expect(list.count == model.count, "step \(step)")
        #expect(Array(list) == model, "step \(step)")
        let total = model.reduce(0) { $0 + $1.weight }
        #expect(list.totalWeight == total, "step \(step)")
        #expect(list.first == model.first && list.last == model.last, "step \(step)")
        var start = 0
        for (index, element) in model.enumerated() {
            #expect(list[index] == element, "step \(step) index \(index)")
            #expect(list.weight(before: index) == start, "step \(step) index \(index)")
            for offset in start..<(start + element.weight) {
                let found = list.locate(weightOffset: offset)
                #expect(found.index == index && found.start == start, "step \(step) offset \(offset)")
            }
            start += element.weight
        }
        #expect(list.weight(before: model.count) == total)
    }

    @Test("Random edits against an array, with chunks of 4 and of 8", arguments: [4, 8])
    func randomEdits(_ capacity: Int) {
        var random = SeededGenerator(seed: UInt64(capacity))
        var model = (0..<10).map { Weighted(value: $0, weight: Int.random(in: 0...3, using: &random)) }
        var list = ChunkedList(model, capacity: capacity)
        Self.check(list, model, step: -1)
        for step in 0..<2_000 {
            let operation = model.isEmpty ? 0 : Int.random(in: 0..<10, using: &random)
            switch operation {
            case 0...3:
                let element = Weighted(value: step, weight: Int.random(in: 0...3, using: &random))
                let index = Int.random(in: 0...model.count, using: &random)
                model.insert(element, at: index)
                list.insert(element, at: index)
            case 4...7:
                let index = Int.random(in: 0..<model.count, using: &random)
                #expect(list.remove(at: index) == model.remove(at: index), "step \(step)")
            case 8:
                // Long runs of removals empty chunks and merge them into their neighbours.
                for _ in 0..<Swift.min(model.count, Int.random(in: 1...12, using: &random)) {
                    let index = Int.random(in: 0..<model.count, using: &random)
                    #expect(list.remove(at: index) == model.remove(at: index), "step \(step)")
                }
            default:
                let index = Int.random(in: 0..<model.count, using: &random)
                model[index].weight = Int.random(in: 0...3, using: &random)
                list[index] = model[index]
            }
            Self.check(list, model, step: step)
            if model.count > 120 {
                // Keep the checks quadratic in a small list.
                model.removeLast(60)
                list = ChunkedList(model, capacity: capacity)
            }
        }
    }

    @Test("A binary search and a slice over sorted elements")
    func searchAndSlices() {
        var list = ChunkedList<Weighted>(capacity: 4)
        var model: [Weighted] = []
        var random = SeededGenerator(seed: 3)
        for _ in 0..<500 {
            let value = Int.random(in: 0..<200, using: &random)
            let element = Weighted(value: value, weight: 1)
            let index = list.partitioningIndex { $0.value >= value }
            #expect(index == (model.firstIndex { $0.value >= value } ?? model.count))
            list.insert(element, at: index)
            model.insert(element, at: index)
        }
        #expect(Array(list) == model)
        #expect(model.map(\.value) == model.map(\.value).sorted())
        for probe in -1...201 {
            #expect(list.partitioningIndex { $0.value > probe } == (model.firstIndex { $0.value > probe } ?? model.count))
        }
        for _ in 0..<200 {
            let lower = Int.random(in: 0...model.count, using: &random)
            let upper = Int.random(in: lower...model.count, using: &random)
            #expect(list.elements(in: lower..<upper) == Array(model[lower..<upper]))
        }
        #expect(ChunkedList<Weighted>().partitioningIndex { _ in true } == 0)
        #expect(ChunkedList<Weighted>().elements(in: 0..<0).isEmpty)
    }

    @Test("Prefix sums, and the value holding an offset, of a Fenwick tree")
    func fenwickTree() {
        var values = [3, 0, 5, 1, 0, 0, 7, 2, 4]
        var tree = FenwickTree(values)
        #expect(tree.total == values.reduce(0, +))
        tree.add(2, at: 4)
        values[4] += 2
        for length in 0...values.count {
            #expect(tree.prefix(length) == values[..<length].reduce(0, +))
        }
        for target in 0..<values.reduce(0, +) {
            var index = 0, before = 0
            while before + values[index] <= target {
                before += values[index]
                index += 1
            }
            let found = tree.locate(target)
            #expect(found.index == index && found.before == before, "target \(target)")
        }
    }
}
