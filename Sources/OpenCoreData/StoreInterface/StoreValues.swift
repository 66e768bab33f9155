/// The values of one row, indexed by layout slot: a copy-on-write buffer like `ContiguousArray`.
///
/// It exists for what fetching costs per row. A `StoreValues` is allocated
/// through a generic stdlib entry point that looks its storage class up at run time, and it is
/// freed by walking every element through the enum's value witness. This buffer's class is
/// concrete, and it records whether any element holds a reference (a string, data, an object ID…):
/// a row of numbers, dates and nulls is freed without looking at its values.
///
/// `@unchecked Sendable`, like the arrays it replaces: values are Sendable, and a buffer is
/// written only while held uniquely (copy on write). `ManagedBuffer` itself is not Sendable.
package struct StoreValues: RandomAccessCollection, MutableCollection, ExpressibleByArrayLiteral, @unchecked Sendable {
    private var storage: StoreValueStorage?

    package init() {}

    package init(arrayLiteral elements: StoreValue...) {
        self.init(elements)
    }

    package init(_ elements: some Collection<StoreValue>) {
        let count = elements.count
        guard count > 0 else { return }
        let storage = StoreValueStorage.make(capacity: count)
        storage.withUnsafeMutablePointers { header, base in
            var index = 0
            for element in elements where index < count {
                if element.holdsReference { header.pointee.holdsReferences = true }
                (base + index).initialize(to: element)
                index += 1
            }
            header.pointee.count = index
        }
        self.storage = storage
    }

    /// Creates `count` values written in place by `initialize`, which must initialize every one
    /// of them and returns whether any holds a reference (`StoreValue.holdsReference`).
    @inline(__always)
    package init(unsafeUninitializedCount count: Int, initializingWith initialize: (UnsafeMutablePointer<StoreValue>) -> Bool) {
        guard count > 0 else { return }
        let storage = StoreValueStorage.make(capacity: count)
        storage.withUnsafeMutablePointers { header, base in
            header.pointee.holdsReferences = initialize(base)
            header.pointee.count = count
        }
        self.storage = storage
    }

    package var startIndex: Int { 0 }
    package var endIndex: Int { count }
    package var count: Int { storage?.count ?? 0 }
    package var isEmpty: Bool { count == 0 }
    package func index(after index: Int) -> Int { index + 1 }
    package func index(before index: Int) -> Int { index - 1 }

    package subscript(position: Int) -> StoreValue {
        get {
            guard let storage, position >= 0, position < storage.count else { preconditionFailure("StoreValues index \(position) out of range") }
            return storage.withUnsafeMutablePointerToElements { $0[position] }
        }
        set {
            precondition(position >= 0 && position < count, "StoreValues index \(position) out of range")
            makeUnique(minimumCapacity: count)
            storage.unsafelyUnwrapped.withUnsafeMutablePointers { header, base in
                if newValue.holdsReference { header.pointee.holdsReferences = true }
                base[position] = newValue
            }
        }
    }

    package mutating func reserveCapacity(_ minimumCapacity: Int) {
        makeUnique(minimumCapacity: minimumCapacity)
    }

    package mutating func append(_ value: StoreValue) {
        let count = self.count
        makeUnique(minimumCapacity: count + 1)
        storage.unsafelyUnwrapped.withUnsafeMutablePointers { header, base in
            if value.holdsReference { header.pointee.holdsReferences = true }
            (base + count).initialize(to: value)
            header.pointee.count = count + 1
        }
    }

    /// Gives `storage` a buffer of its own with room for `minimumCapacity` values.
    private mutating func makeUnique(minimumCapacity: Int) {
        let count = self.count
        let oldCapacity = storage?.reservedCapacity ?? 0
        if oldCapacity >= minimumCapacity, isKnownUniquelyReferenced(&storage) { return }
        // A shared buffer is copied at its size; a full one grows geometrically, as arrays do.
        let capacity = oldCapacity >= minimumCapacity ? Swift.max(count, minimumCapacity) : Swift.max(minimumCapacity, count * 2)
        guard capacity > 0 else { return }
        let fresh = StoreValueStorage.make(capacity: capacity)
        if let old = storage {
            let unique = isKnownUniquelyReferenced(&storage)
            old.withUnsafeMutablePointers { oldHeader, oldBase in
                fresh.withUnsafeMutablePointers { header, base in
                    if unique {
                        base.moveInitialize(from: oldBase, count: count)
                        oldHeader.pointee.count = 0
                    } else {
                        base.initialize(from: oldBase, count: count)
                    }
                    header.pointee.count = count
                    header.pointee.holdsReferences = oldHeader.pointee.holdsReferences
                }
            }
        }
        storage = fresh
    }
}

extension StoreValues: Equatable {
    package static func == (lhs: StoreValues, rhs: StoreValues) -> Bool {
        // Rows handed from one context to another share their buffer: no value to compare.
        if lhs.storage === rhs.storage { return true }
        return lhs.elementsEqual(rhs)
    }
}

extension StoreValue {
    /// Whether freeing the value releases a reference; false for numbers, dates, UUIDs and markers.
    @inline(__always)
    package var holdsReference: Bool {
        switch self {
        case .null, .int, .double, .date, .uuid, .unloaded: false
        case .string, .data, .decimal, .uri, .objectID, .objectIDs: true
        }
    }
}

/// The buffer behind `StoreValues`.
final class StoreValueStorage: ManagedBuffer<StoreValueStorage.Header, StoreValue> {
    struct Header {
        var count: Int
        var capacity: Int
        var holdsReferences: Bool
    }

    // Read through the header pointer: `ManagedBuffer.header` is a class property, so reading
    // it pays a dynamic exclusivity check.
    var count: Int {
        @inline(__always) get { withUnsafeMutablePointerToHeader { $0.pointee.count } }
    }

    var reservedCapacity: Int {
        @inline(__always) get { withUnsafeMutablePointerToHeader { $0.pointee.capacity } }
    }

    @inline(__always)
    static func make(capacity: Int) -> StoreValueStorage {
        let buffer = create(minimumCapacity: capacity) { _ in Header(count: 0, capacity: capacity, holdsReferences: false) }
        return unsafeDowncast(buffer, to: StoreValueStorage.self)
    }

    deinit {
        withUnsafeMutablePointers { header, base in
            if header.pointee.holdsReferences { base.deinitialize(count: header.pointee.count) }
        }
    }
}
