/// How many positions of an outer index an element of a `ChunkedList` spans: 1 for a result,
/// its object count for a section.
protocol ChunkWeighted {
    var chunkWeight: Int { get }
}

/// A list in chunks of a bounded size, indexed by Fenwick trees over the chunks' element counts
/// and weights. What a fetched results controller keeps its results and sections in, so that
/// one changed object costs O(log *n*) instead of the O(*n*) shift of an array:
///
/// - finding the chunk of an index, or of a weight offset (the section holding a row), walks a
///   Fenwick tree: O(log(*n*/`capacity`));
/// - inserting or removing shifts at most `capacity` elements of one chunk and updates both
///   trees: O(`capacity` + log *n*), the first term a bounded constant;
/// - a chunk that outgrows `capacity` is split, and one that falls below a quarter of it is
///   merged into a neighbour; either rebuilds the trees in O(*n*/`capacity`), which happens at
///   most once per `capacity`/4 changes to that chunk (amortised O(*n*/`capacity`²)).
///
/// A binary search over the order of the elements (`partitioningIndex(where:)`) costs
/// O(log *n*) predicate calls.
struct ChunkedList<Element: ChunkWeighted>: Sequence {
    /// The most elements one chunk holds (512 unless a test asks for tiny chunks).
    let capacity: Int

    private var chunks: [[Element]] = []
    private var counts = FenwickTree([])
    private var weights = FenwickTree([])

    /// The number of elements.
    private(set) var count = 0

    init(capacity: Int = 512) {
        self.capacity = Swift.max(capacity, 4)
    }

    init(_ elements: some Collection<Element>, capacity: Int = 512) {
        self.capacity = Swift.max(capacity, 4)
        var chunk: [Element] = []
        let size = self.capacity / 2
        chunk.reserveCapacity(size)
        for element in elements {
            chunk.append(element)
            if chunk.count == size {
                chunks.append(chunk)
                chunk.removeAll(keepingCapacity: true)
            }
        }
        if !chunk.isEmpty { chunks.append(chunk) }
        count = elements.count
        rebuildTrees()
    }

    var isEmpty: Bool { count == 0 }

    /// The sum of the elements' weights.
    var totalWeight: Int { weights.total }

    var first: Element? { chunks.first?.first }
    var last: Element? { chunks.last?.last }

    // MARK: - Positions

    /// The chunk holding `index` and the index within it (`index` in `0..<count`).
    private func position(of index: Int) -> (chunk: Int, offset: Int) {
        let (chunk, before) = counts.locate(index)
        return (chunk, index - before)
    }

    subscript(index: Int) -> Element {
        get {
            precondition(index >= 0 && index < count, "ChunkedList index out of range")
            let (chunk, offset) = position(of: index)
            return chunks[chunk][offset]
        }
        set {
            precondition(index >= 0 && index < count, "ChunkedList index out of range")
            let (chunk, offset) = position(of: index)
            let delta = newValue.chunkWeight - chunks[chunk][offset].chunkWeight
            chunks[chunk][offset] = newValue
            if delta != 0 { weights.add(delta, at: chunk) }
        }
    }

    /// The element whose weight spans `offset` (in `0..<totalWeight`), its index, and the
    /// weight of the elements before it. Elements of weight 0 span nothing and are never answered.
    func locate(weightOffset offset: Int) -> (index: Int, start: Int) {
        precondition(offset >= 0 && offset < totalWeight, "ChunkedList weight offset out of range")
        let (chunk, before) = weights.locate(offset)
        var start = before
        for (position, element) in chunks[chunk].enumerated() {
            let weight = element.chunkWeight
            if offset < start + weight { return (counts.prefix(chunk) + position, start) }
            start += weight
        }
        preconditionFailure("ChunkedList: a chunk's weight disagrees with its elements")
    }

    /// The weight of the elements before `index` (in `0...count`).
    func weight(before index: Int) -> Int {
        precondition(index >= 0 && index <= count, "ChunkedList index out of range")
        if index == count { return totalWeight }
        let (chunk, offset) = position(of: index)
        var sum = weights.prefix(chunk)
        for element in chunks[chunk][..<offset] { sum += element.chunkWeight }
        return sum
    }

    /// The first index whose element satisfies `predicate`, which must be false for a prefix of
    /// the list and true for the rest; `count` if none does.
    func partitioningIndex(where predicate: (Element) throws -> Bool) rethrows -> Int {
        var low = 0, high = chunks.count
        while low < high {
            let middle = (low + high) / 2
            // Chunks are never empty.
            if try predicate(chunks[middle][chunks[middle].count - 1]) { high = middle } else { low = middle + 1 }
        }
        guard low < chunks.count else { return count }
        let chunk = chunks[low]
        var first = 0, last = chunk.count
        while first < last {
            let middle = (first + last) / 2
            if try predicate(chunk[middle]) { last = middle } else { first = middle + 1 }
        }
        return counts.prefix(low) + first
    }

    /// The elements at `range`, in order.
    func elements(in range: Range<Int>) -> [Element] {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "ChunkedList range out of range")
        guard !range.isEmpty else { return [] }
        var result: [Element] = []
        result.reserveCapacity(range.count)
        var (chunk, offset) = position(of: range.lowerBound)
        while result.count < range.count {
            let take = Swift.min(chunks[chunk].count - offset, range.count - result.count)
            result.append(contentsOf: chunks[chunk][offset..<(offset + take)])
            chunk += 1
            offset = 0
        }
        return result
    }

    // MARK: - Changing

    mutating func insert(_ element: Element, at index: Int) {
        precondition(index >= 0 && index <= count, "ChunkedList index out of range")
        guard !chunks.isEmpty else {
            chunks = [[element]]
            count = 1
            rebuildTrees()
            return
        }
        let (chunk, offset) = index == count ? (chunks.count - 1, chunks[chunks.count - 1].count) : position(of: index)
        chunks[chunk].insert(element, at: offset)
        count += 1
        if chunks[chunk].count > capacity {
            splitChunk(chunk)
            rebuildTrees()
        } else {
            counts.add(1, at: chunk)
            weights.add(element.chunkWeight, at: chunk)
        }
    }

    @discardableResult
    mutating func remove(at index: Int) -> Element {
        precondition(index >= 0 && index < count, "ChunkedList index out of range")
        let (chunk, offset) = position(of: index)
        let element = chunks[chunk].remove(at: offset)
        count -= 1
        if chunks[chunk].isEmpty {
            chunks.remove(at: chunk)
            rebuildTrees()
        } else if chunks[chunk].count < capacity / 4 && chunks.count > 1 {
            // Merge into a neighbour (the next one, or the previous for the last chunk), and
            // split again if that overflows.
            let (left, right) = chunk + 1 < chunks.count ? (chunk, chunk + 1) : (chunk - 1, chunk)
            let moved = chunks[right]
            chunks[left].append(contentsOf: moved)
            chunks.remove(at: right)
            if chunks[left].count > capacity { splitChunk(left) }
            rebuildTrees()
        } else {
            counts.add(-1, at: chunk)
            weights.add(-element.chunkWeight, at: chunk)
        }
        return element
    }

    /// Moves the back half of a chunk into a new chunk after it (the trees need rebuilding).
    private mutating func splitChunk(_ chunk: Int) {
        let half = chunks[chunk].count / 2
        let tail = Array(chunks[chunk][half...])
        chunks[chunk].removeSubrange(half...)
        chunks.insert(tail, at: chunk + 1)
    }

    private mutating func rebuildTrees() {
        counts = FenwickTree(chunks.map(\.count))
        weights = FenwickTree(chunks.map { $0.reduce(0) { $0 + $1.chunkWeight } })
    }

    // MARK: - Sequence

    func makeIterator() -> FlattenSequence<[[Element]]>.Iterator {
        chunks.joined().makeIterator()
    }

    var underestimatedCount: Int { count }
}

// MARK: - Fenwick tree

/// Prefix sums of a list of non-negative integers with O(log *n*) updates and searches.
struct FenwickTree {
    /// 1-based: `tree[i]` sums the values `i - (i & -i) ..< i` (0-based).
    private var tree: [Int]

    init(_ values: [Int]) {
        tree = [0] + values
        for index in tree.indices.dropFirst() {
            let parent = index + (index & -index)
            if parent < tree.count { tree[parent] += tree[index] }
        }
    }

    /// The number of values.
    var count: Int { tree.count - 1 }

    var total: Int { prefix(count) }

    mutating func add(_ delta: Int, at index: Int) {
        var node = index + 1
        while node < tree.count {
            tree[node] += delta
            node += node & -node
        }
    }

    /// The sum of the first `length` values.
    func prefix(_ length: Int) -> Int {
        var sum = 0, node = length
        while node > 0 {
            sum += tree[node]
            node -= node & -node
        }
        return sum
    }

    /// The first value whose running total exceeds `target` (in `0..<total`), and the sum of
    /// the values before it.
    func locate(_ target: Int) -> (index: Int, before: Int) {
        var position = 0, remaining = target
        var step = 1
        while step * 2 <= count { step *= 2 }
        while step > 0 {
            let next = position + step
            if next <= count && tree[next] <= remaining {
                position = next
                remaining -= tree[next]
            }
            step /= 2
        }
        return (position, target - remaining)
    }
}
