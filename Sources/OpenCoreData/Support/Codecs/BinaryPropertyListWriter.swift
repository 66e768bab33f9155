import Foundation

/// A property-list value to write, with keyed-archive UIDs and dictionaries in a fixed key order.
///
/// Foundation's `PropertyListSerialization` can't write UIDs from Swift, and a keyed archive is
/// made of them, so ``BinaryPropertyListWriter`` writes this tree instead.
package indirect enum PropertyListValue: Hashable, Sendable {
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    case date(Date)
    case data(Data)
    case string(String)
    /// A keyed-archive reference (`CF$UID`) to an index of `$objects`.
    case uid(Int)
    case array([PropertyListValue])
    /// Keys and values in the order they are written.
    case dictionary(keys: [String], values: [PropertyListValue])
}

/// Writes Apple's binary property list format (`bplist00`), the format ``BinaryPropertyList``
/// reads: the magic, the objects, an offset table and a 32-byte trailer.
///
/// Equal strings, numbers and UIDs are written once and shared, as Apple's writer does, which
/// keeps a model archive (hundreds of repeated key names and flags) small.
package enum BinaryPropertyListWriter {
    /// The binary property list of `root`.
    package static func data(_ root: PropertyListValue) -> Data {
        var state = State()
        let top = state.index(root)
        return state.finish(top: top)
    }

    private struct State {
        /// Each object's encoding without its references resolved: a marker and its payload, or a container.
        enum Entry {
            case bytes([UInt8])
            case container(marker: UInt8, count: Int, references: [Int])
        }
        var entries: [Entry] = []
        var shared: [PropertyListValue: Int] = [:]

        /// The object index of a value, adding it (and its children) on first sight.
        mutating func index(_ value: PropertyListValue) -> Int {
            WorkCounter.count()
            switch value {
            case .array(let items):
                let references = items.map { index($0) }
                entries.append(.container(marker: 0xA0, count: items.count, references: references))
                return entries.count - 1
            case .dictionary(let keys, let values):
                let references = keys.map { index(.string($0)) } + values.map { index($0) }
                entries.append(.container(marker: 0xD0, count: keys.count, references: references))
                return entries.count - 1
            default:
                if let known = shared[value] { return known }
                entries.append(.bytes(Self.scalar(value)))
                shared[value] = entries.count - 1
                return entries.count - 1
            }
        }

        static func scalar(_ value: PropertyListValue) -> [UInt8] {
            switch value {
            case .bool(let bool):
                return [bool ? 0x09 : 0x08]
            case .integer(let integer):
                return Self.integer(integer)
            case .real(let real):
                return [0x23] + bigEndian(real.bitPattern, size: 8)
            case .date(let date):
                return [0x33] + bigEndian(date.timeIntervalSinceReferenceDate.bitPattern, size: 8)
            case .data(let data):
                return header(0x40, data.count) + [UInt8](data)
            case .string(let string):
                if string.utf8.allSatisfy({ $0 < 0x80 }) {
                    return header(0x50, string.utf8.count) + Array(string.utf8)
                }
                let units = Array(string.utf16)
                var bytes = header(0x60, units.count)
                bytes.reserveCapacity(bytes.count + units.count * 2)
                for unit in units { bytes += [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
                return bytes
            case .uid(let index):
                let size = index < 1 << 8 ? 1 : index < 1 << 16 ? 2 : index < 1 << 32 ? 4 : 8
                return [0x80 | UInt8(size - 1)] + bigEndian(UInt64(index), size: size)
            case .array, .dictionary:
                preconditionFailure("containers are not scalars")
            }
        }

        /// An integer object: non-negative values in the fewest of 1, 2 or 4 bytes (read as
        /// unsigned), everything else in 8 signed bytes.
        static func integer(_ value: Int64) -> [UInt8] {
            switch value {
            case 0..<(1 << 8): return [0x10] + bigEndian(UInt64(value), size: 1)
            case (1 << 8)..<(1 << 16): return [0x11] + bigEndian(UInt64(value), size: 2)
            case (1 << 16)..<(1 << 32): return [0x12] + bigEndian(UInt64(value), size: 4)
            default: return [0x13] + bigEndian(UInt64(bitPattern: value), size: 8)
            }
        }

        /// A marker with a count: in its low nibble below 15, else 0xF and an integer object.
        static func header(_ marker: UInt8, _ count: Int) -> [UInt8] {
            count < 15 ? [marker | UInt8(count)] : [marker | 0x0F] + integer(Int64(count))
        }

        static func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
            (0..<size).map { UInt8(truncatingIfNeeded: value >> UInt64(8 * (size - 1 - $0))) }
        }

        static func byteSize(for value: Int) -> Int {
            value < 1 << 8 ? 1 : value < 1 << 16 ? 2 : value < 1 << 32 ? 4 : 8
        }

        func finish(top: Int) -> Data {
            let referenceSize = Self.byteSize(for: entries.count)
            var output: [UInt8] = Array("bplist00".utf8)
            var offsets: [Int] = []
            offsets.reserveCapacity(entries.count)
            for entry in entries {
                WorkCounter.count()
                offsets.append(output.count)
                switch entry {
                case .bytes(let bytes):
                    output += bytes
                case .container(let marker, let count, let references):
                    output += Self.header(marker, count)
                    for reference in references { output += Self.bigEndian(UInt64(reference), size: referenceSize) }
                }
            }
            let tableOffset = output.count
            let offsetSize = Self.byteSize(for: tableOffset)
            for offset in offsets { output += Self.bigEndian(UInt64(offset), size: offsetSize) }
            output += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
            output += Self.bigEndian(UInt64(entries.count), size: 8)
            output += Self.bigEndian(UInt64(top), size: 8)
            output += Self.bigEndian(UInt64(tableOffset), size: 8)
            return Data(output)
        }
    }
}
