import Foundation

/// A keyed-archive object reference (a `CF$UID`): an index into the archive's `$objects`.
package struct KeyedArchiveUID: Hashable, Sendable {
    package var index: Int
}

/// Reads property lists without trusting them.
///
/// swift-corelibs-foundation's `PropertyListSerialization` traps on some malformed binary
/// property lists (the fuzz tests found a crash while bridging a corrupted set), and model files
/// and store metadata come from outside. So binary property lists (`bplist00`) are read here,
/// with every offset, count and reference checked; XML property lists, which Foundation parses
/// safely, still go through `PropertyListSerialization`.
package enum PropertyListReader {
    /// Parses a binary or XML property list.
    ///
    /// Values come back as `String`, `NSNumber`, `Bool`, `Data`, `Date`, `[Any]`, `[String: Any]`
    /// and, for keyed archives, ``KeyedArchiveUID`` (binary) or Foundation's UID object (XML).
    /// - Throws: ``PropertyListError`` or Foundation's error when the data is not a property list.
    package static func propertyList(from data: Data) throws -> Any {
        if data.starts(with: BinaryPropertyList.magic) {
            return try BinaryPropertyList(data).root()
        }
        return try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
    }
}

/// Why a binary property list could not be read.
package struct PropertyListError: Error, CustomStringConvertible, Sendable {
    package var reason: String
    package var description: String { "invalid binary property list: \(reason)" }
}

/// A bounds-checked reader of Apple's binary property list format (`bplist00`).
///
/// Layout: the 8-byte magic, the objects, an offset table, and a 32-byte trailer giving the
/// offset and reference sizes, the object count, the top object and the table's position.
/// Each object starts with a marker byte: high nibble the type, low nibble a size or count
/// (15 meaning "an integer object follows with the real count").
struct BinaryPropertyList {
    static let magic = Array("bplist00".utf8)
    /// How deeply containers may nest.
    static let maximumDepth = 512

    let bytes: [UInt8]
    let offsetSize: Int
    let referenceSize: Int
    let objectCount: Int
    let topObject: Int
    let offsetTable: Int

    /// Decoded objects by index, so shared objects are decoded once.
    private final class Memo {
        var values: [Int: Any] = [:]
        var inProgress = Set<Int>()
    }

    init(_ data: Data) throws {
        let raw = [UInt8](data)
        bytes = raw
        guard raw.count >= Self.magic.count + 32 else { throw PropertyListError(reason: "too short") }
        let trailer = raw.count - 32
        offsetSize = Int(raw[trailer + 6])
        referenceSize = Int(raw[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
            throw PropertyListError(reason: "bad offset or reference size")
        }
        let limit = UInt64(raw.count)
        let values = [trailer + 8, trailer + 16, trailer + 24].map { Self.bigEndian(raw[$0..<($0 + 8)]) }
        guard values.allSatisfy({ $0 <= limit }) else { throw PropertyListError(reason: "trailer values out of range") }
        objectCount = Int(values[0])
        topObject = Int(values[1])
        offsetTable = Int(values[2])
        guard topObject < objectCount else { throw PropertyListError(reason: "top object out of range") }
        let (tableSize, overflow) = objectCount.multipliedReportingOverflow(by: offsetSize)
        guard !overflow, offsetTable >= Self.magic.count, offsetTable + tableSize <= trailer else {
            throw PropertyListError(reason: "offset table out of range")
        }
    }

    /// The top object.
    func root() throws -> Any {
        try object(topObject, depth: 0, memo: Memo())
    }

    // MARK: - Objects

    private func offset(of index: Int) throws -> Int {
        guard index >= 0, index < objectCount else { throw PropertyListError(reason: "object reference \(index) out of range") }
        let start = offsetTable + index * offsetSize
        let offset = Self.bigEndian(bytes[start..<(start + offsetSize)])
        guard offset >= UInt64(Self.magic.count), offset < UInt64(offsetTable) else {
            throw PropertyListError(reason: "object \(index) starts outside the object area")
        }
        return Int(offset)
    }

    private func object(_ index: Int, depth: Int, memo: Memo) throws -> Any {
        if let value = memo.values[index] { return value }
        guard depth < Self.maximumDepth else { throw PropertyListError(reason: "containers nested too deeply") }
        guard memo.inProgress.insert(index).inserted else { throw PropertyListError(reason: "object \(index) contains itself") }
        defer { memo.inProgress.remove(index) }
        let value = try decode(at: try offset(of: index), depth: depth, memo: memo)
        memo.values[index] = value
        return value
    }

    private func decode(at position: Int, depth: Int, memo: Memo) throws -> Any {
        let marker = bytes[position]
        let type = marker >> 4
        let info = Int(marker & 0x0F)
        switch type {
        case 0x0:
            switch marker {
            case 0x08: return false
            case 0x09: return true
            default: throw PropertyListError(reason: "unsupported marker 0x\(String(marker, radix: 16))")
            }
        case 0x1:
            return try integer(at: position)
        case 0x2:
            let size = 1 << info
            let data = try slice(position + 1, size)
            switch size {
            case 4: return NSNumber(value: Float(bitPattern: UInt32(Self.bigEndian(data))))
            case 8: return NSNumber(value: Double(bitPattern: Self.bigEndian(data)))
            default: throw PropertyListError(reason: "real of \(size) bytes")
            }
        case 0x3:
            guard marker == 0x33 else { throw PropertyListError(reason: "bad date marker") }
            return Date(timeIntervalSinceReferenceDate: Double(bitPattern: Self.bigEndian(try slice(position + 1, 8))))
        case 0x4:
            let (count, start) = try length(info, at: position)
            return Data(try slice(start, count))
        case 0x5:
            let (count, start) = try length(info, at: position)
            let characters = try slice(start, count)
            guard let string = String(bytes: characters, encoding: .ascii) ?? String(bytes: characters, encoding: .isoLatin1) else {
                throw PropertyListError(reason: "bad ASCII string")
            }
            return string
        case 0x6:
            let (count, start) = try length(info, at: position)
            let (byteCount, overflow) = count.multipliedReportingOverflow(by: 2)
            guard !overflow else { throw PropertyListError(reason: "string too long") }
            let units = try slice(start, byteCount)
            var utf16: [UInt16] = []
            utf16.reserveCapacity(count)
            var index = units.startIndex
            while index < units.endIndex {
                utf16.append(UInt16(units[index]) << 8 | UInt16(units[index + 1]))
                index += 2
            }
            return String(decoding: utf16, as: UTF16.self)
        case 0x8:
            return KeyedArchiveUID(index: Int(clamping: Self.bigEndian(try slice(position + 1, info + 1))))
        case 0xA, 0xC:
            let (count, start) = try length(info, at: position)
            let references = try self.references(start, count)
            return try references.map { try object($0, depth: depth + 1, memo: memo) }
        case 0xD:
            let (count, start) = try length(info, at: position)
            let (total, overflow) = count.multipliedReportingOverflow(by: 2)
            guard !overflow else { throw PropertyListError(reason: "dictionary too large") }
            let references = try self.references(start, total)
            var dictionary: [String: Any] = [:]
            dictionary.reserveCapacity(count)
            for offset in 0..<count {
                guard let key = try object(references[offset], depth: depth + 1, memo: memo) as? String else {
                    throw PropertyListError(reason: "a dictionary key is not a string")
                }
                dictionary[key] = try object(references[count + offset], depth: depth + 1, memo: memo)
            }
            return dictionary
        default:
            throw PropertyListError(reason: "unknown object type 0x\(String(type, radix: 16))")
        }
    }

    /// An integer object: 1, 2 and 4-byte values are unsigned, 8-byte values signed; of a
    /// 16-byte value only the low 8 bytes are kept.
    private func integer(at position: Int) throws -> NSNumber {
        let marker = bytes[position]
        guard marker >> 4 == 0x1 else { throw PropertyListError(reason: "expected an integer") }
        let size = 1 << Int(marker & 0x0F)
        guard size <= 16 else { throw PropertyListError(reason: "integer of \(size) bytes") }
        let data = try slice(position + 1, size)
        switch size {
        case 8: return NSNumber(value: Int64(bitPattern: Self.bigEndian(data)))
        case 16: return NSNumber(value: Int64(bitPattern: Self.bigEndian(data.suffix(8))))
        default: return NSNumber(value: Self.bigEndian(data))
        }
    }

    /// The count of a data, string or container object and where its content starts.
    private func length(_ info: Int, at position: Int) throws -> (count: Int, start: Int) {
        guard info == 0x0F else { return (info, position + 1) }
        guard position + 1 < bytes.count else { throw PropertyListError(reason: "truncated length") }
        let number = try integer(at: position + 1)
        let size = 1 << Int(bytes[position + 1] & 0x0F)
        let count = number.int64Value
        guard count >= 0, count <= Int64(bytes.count) else { throw PropertyListError(reason: "length \(count) out of range") }
        return (Int(count), position + 2 + size)
    }

    private func references(_ start: Int, _ count: Int) throws -> [Int] {
        let (size, overflow) = count.multipliedReportingOverflow(by: referenceSize)
        guard !overflow else { throw PropertyListError(reason: "too many references") }
        let data = try slice(start, size)
        var references: [Int] = []
        references.reserveCapacity(count)
        var offset = data.startIndex
        while offset < data.endIndex {
            var value = 0
            for index in offset..<(offset + referenceSize) { value = value << 8 | Int(data[index]) }
            references.append(value)
            offset += referenceSize
        }
        return references
    }

    /// `count` bytes from `start`, which must lie before the offset table.
    private func slice(_ start: Int, _ count: Int) throws -> ArraySlice<UInt8> {
        guard start >= 0, count >= 0, start <= offsetTable, count <= offsetTable - start else {
            throw PropertyListError(reason: "object data runs past the object area")
        }
        return bytes[start..<(start + count)]
    }

    private static func bigEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var value: UInt64 = 0
        var index = max(bytes.startIndex, bytes.endIndex - 8)
        while index < bytes.endIndex {
            value = value << 8 | UInt64(bytes[index])
            index += 1
        }
        return value
    }
}
