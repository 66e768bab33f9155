import Foundation
import GRDB

/// Option (OpenCoreData only, package API): the size in bytes above which a value of an
/// attribute with `allowsExternalBinaryDataStorage` is written to a file beside the store
/// instead of its row (`SQLiteExternalData.defaultThreshold` when absent).
package let OCDExternalBinaryDataThresholdOption = "OCDExternalBinaryDataThresholdOption"

/// The external-data folder of a SQLite store (`.<Name>_SUPPORT/_EXTERNAL_DATA/`) and the
/// in-row reference marker of OpenCoreData's own format (docs/StoreFormat.md).
///
/// A value of a binary or transformable attribute with `allowsExternalBinaryDataStorage` that is
/// larger than `threshold` bytes is written to a file named by a new UUID; its column holds the
/// marker `OCD-EXTERNAL-DATA:1:<UUID>:<byte count>` as SQLite TEXT. OpenCoreData writes every
/// binary value as a BLOB, so a TEXT value with that prefix is never a value itself.
///
/// Apple's in-row reference format is not known from evidence. A BLOB in such a column that holds
/// nothing but a UUID in text form and one or more non-printing framing bytes is taken for a
/// reference written by another implementation: the file of that name is read when it exists,
/// and otherwise the value reads as nil, with a log line, never as the reference's bytes.
package struct SQLiteExternalData: Sendable {
    /// Values larger than this many bytes go to a file by default (128 KiB): small values stay
    /// in the row, where SQLite reads them faster than a file; large ones keep rows and pages
    /// small. Apple decides "heuristically on a per-value basis" and documents no number.
    package static let defaultThreshold = 128 * 1024

    /// The prefix of a marker, version included.
    static let markerPrefix = "OCD-EXTERNAL-DATA:1:"
    /// The longest BLOB examined as a possible reference written by another implementation.
    static let foreignReferenceMaximumLength = 64
    /// The folder's name inside the support folder.
    static let folderName = "_EXTERNAL_DATA"

    /// The store file this folder belongs to (for messages).
    let storeURL: URL
    /// `.<Name>_SUPPORT/_EXTERNAL_DATA/`
    let folder: URL
    /// Values larger than this many bytes are written to files.
    let threshold: Int

    init(storeURL: URL, threshold: Int) {
        self.storeURL = storeURL
        self.folder = SQLiteStoreFiles.supportFolder(of: storeURL).appendingPathComponent(Self.folderName, isDirectory: true)
        self.threshold = threshold
    }

    /// Whether values of an attribute may be stored outside the row: Apple's flag, on a type
    /// whose store value is bytes (binary data, and transformable values, which reach the store
    /// as the transformer's `Data`).
    static func isExternal(_ attribute: NSAttributeDescription) -> Bool {
        attribute.allowsExternalBinaryDataStorage
            && (attribute.attributeType == .binaryDataAttributeType || attribute.attributeType == .transformableAttributeType)
    }

    // MARK: - Markers

    /// The marker that replaces a value written to the file `name`.
    static func marker(name: UUID, byteCount: Int) -> String {
        "\(markerPrefix)\(name.uuidString):\(byteCount)"
    }

    /// The file name and byte count of a marker; nil when the text is not one of ours.
    static func parseMarker(_ text: String) -> (name: UUID, byteCount: Int)? {
        guard text.hasPrefix(markerPrefix) else { return nil }
        let rest = text.utf8.dropFirst(markerPrefix.utf8.count)
        let parts = rest.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        guard parts.count == 2, let name = UUID(uuidString: String(decoding: parts[0], as: UTF8.self)),
              let count = Int(String(decoding: parts[1], as: UTF8.self)), count >= 0 else { return nil }
        return (name, count)
    }

    /// The UUID a BLOB names when it holds nothing but a UUID in text form (36 characters) and
    /// non-printing framing bytes around it; nil for anything else. A bare UUID string is a
    /// plausible small value of its own (an app storing an identifier), so framing is required.
    static func foreignReference(_ bytes: UnsafeRawBufferPointer) -> UUID? {
        guard bytes.count > 36, bytes.count <= foreignReferenceMaximumLength else { return nil }
        var start: Int?
        for index in 0..<bytes.count {
            let byte = bytes[index]
            if byte >= 0x20 && byte < 0x7F {
                if start == nil { start = index }
            } else if let first = start {
                // Printable text must be exactly one run: the UUID.
                guard index - first == 36 else { return nil }
                for rest in index..<bytes.count where bytes[rest] >= 0x20 && bytes[rest] < 0x7F { return nil }
                return UUID(uuidString: String(decoding: UnsafeRawBufferPointer(rebasing: bytes[first..<index]), as: UTF8.self))
            }
        }
        guard let first = start, bytes.count - first == 36 else { return nil }
        return UUID(uuidString: String(decoding: UnsafeRawBufferPointer(rebasing: bytes[first...]), as: UTF8.self))
    }

    /// The URL of the file a name refers to.
    func fileURL(_ name: UUID) -> URL {
        folder.appendingPathComponent(name.uuidString, isDirectory: false)
    }

    // MARK: - Reading

    /// The value of a column whose attribute stores externally, in store form: the file's bytes
    /// for a marker or a resolvable reference, nil (logged) for one that cannot be resolved, the
    /// column's own bytes otherwise.
    func storeValue(_ value: DatabaseValue, type: NSAttributeType) -> StoreValue {
        switch value.storage {
        case .string(let text):
            guard let marker = Self.parseMarker(text) else { return SQLiteValueCoding.storeValue(value, type: type) }
            return read(marker.name, expectedCount: marker.byteCount).map(StoreValue.data) ?? .null
        case .blob(let data):
            guard data.count <= Self.foreignReferenceMaximumLength,
                  let name = data.withUnsafeBytes(Self.foreignReference) else { return .data(data) }
            return read(name, expectedCount: nil).map(StoreValue.data) ?? .null
        default:
            return SQLiteValueCoding.storeValue(value, type: type)
        }
    }

    /// The bytes of an external file; nil, with a log line, when it is missing, unreadable or
    /// not of the recorded size.
    func read(_ name: UUID, expectedCount: Int?) -> Data? {
        let url = fileURL(name)
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            Log.store.error("The external data file \(url.path) of the store \(storeURL.path) cannot be read (\(error)); the value reads as nil.")
            return nil
        }
        if let expectedCount, data.count != expectedCount {
            Log.store.error("The external data file \(url.path) of the store \(storeURL.path) holds \(data.count) bytes, not the \(expectedCount) its row records; the value reads as nil.")
            return nil
        }
        return data
    }

    /// The file a column's stored value refers to, when it is a marker or a reference whose file
    /// exists (the file to remove when the value is replaced or its row deleted).
    func referencedFile(_ value: DatabaseValue) -> URL? {
        switch value.storage {
        case .string(let text):
            return Self.parseMarker(text).map { fileURL($0.name) }
        case .blob(let data):
            guard data.count <= Self.foreignReferenceMaximumLength, let name = data.withUnsafeBytes(Self.foreignReference) else { return nil }
            let url = fileURL(name)
            return FileManager.default.fileExists(atPath: url.path) ? url : nil
        default:
            return nil
        }
    }
}
