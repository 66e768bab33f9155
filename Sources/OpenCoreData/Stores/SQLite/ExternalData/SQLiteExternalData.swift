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
/// What a BLOB is follows from the store's bookkeeping, never from its bytes alone:
/// - in a store OpenCoreData created (its metadata holds `bookkeepingKey`), a BLOB is a value;
/// - in a store another implementation created, a short BLOB shaped like a reference (a UUID's
///   text and non-printing framing bytes) is read as one only when the file it names exists and
///   no other row names that file (`SQLiteExternalData+Ownership.swift`); anything else is a value.
///   OpenCoreData itself never leaves such a BLOB in those stores: it writes a value of that shape
///   to a file of its own, with a marker, as it writes a large one.
package struct SQLiteExternalData: Sendable {
    /// Values larger than this many bytes go to a file by default (128 KiB): small values stay
    /// in the row, where SQLite reads them faster than a file; large ones keep rows and pages
    /// small. Apple decides "heuristically on a per-value basis" and documents no number.
    package static let defaultThreshold = 128 * 1024

    /// The metadata key OpenCoreData sets when it creates a store: external values in it are
    /// markers, and every BLOB is a value. Never added to a store another implementation made.
    package static let bookkeepingKey = "OCDExternalDataFormat"
    /// The value of `bookkeepingKey`: the marker format's version.
    package static let bookkeepingVersion = 1

    /// The prefix of a marker, version included.
    static let markerPrefix = "OCD-EXTERNAL-DATA:1:"
    /// The shortest and the longest BLOB examined as a possible reference written by another
    /// implementation: a UUID's 36 characters and at least one framing byte, at most 64 in all.
    static let foreignReferenceLengths = 37...64
    /// The folder's name inside the support folder.
    static let folderName = "_EXTERNAL_DATA"

    /// The store file this folder belongs to (for messages).
    let storeURL: URL
    /// `.<Name>_SUPPORT/_EXTERNAL_DATA/`
    let folder: URL
    /// Values larger than this many bytes are written to files.
    let threshold: Int
    /// The columns that may hold another implementation's references (those of attributes with
    /// the flag), when the store's bookkeeping is not OpenCoreData's; empty otherwise, and
    /// then no BLOB is ever read as a reference.
    let foreignColumns: [ForeignColumn]

    /// A column of a flagged attribute, in a store another implementation created.
    struct ForeignColumn: Sendable {
        let table: String
        let column: String
    }

    /// - Parameters:
    ///   - metadata: the store's metadata; `bookkeepingKey` there says OpenCoreData made it.
    ///   - schema: the store's schema, whose flagged columns are searched for other rows naming a
    ///     file (only when the store is not OpenCoreData's).
    init(storeURL: URL, threshold: Int, metadata: [String: Any], schema: SQLStoreSchema?) {
        self.storeURL = storeURL
        self.folder = SQLiteStoreFiles.supportFolder(of: storeURL).appendingPathComponent(Self.folderName, isDirectory: true)
        self.threshold = threshold
        if Self.isOpenCoreDataBookkeeping(metadata) {
            foreignColumns = []
        } else {
            foreignColumns = schema.map(Self.flaggedColumns) ?? []
        }
    }

    /// Whether a store's metadata says OpenCoreData created it (so every BLOB in it is a value).
    static func isOpenCoreDataBookkeeping(_ metadata: [String: Any]) -> Bool {
        (metadata[bookkeepingKey] as? NSNumber)?.intValue == bookkeepingVersion || metadata[bookkeepingKey] as? Int == bookkeepingVersion
    }

    /// The columns of the schema's attributes that allow external storage.
    static func flaggedColumns(_ schema: SQLStoreSchema) -> [ForeignColumn] {
        var columns: [ForeignColumn] = []
        for table in schema.tables {
            for column in table.columns {
                guard case .attribute = column.role, let attribute = column.property as? NSAttributeDescription, isExternal(attribute) else { continue }
                columns.append(ForeignColumn(table: table.name, column: column.name))
            }
        }
        return columns
    }

    /// Whether values of an attribute may be stored outside the row: Apple's flag, on a type
    /// whose store value is bytes (binary data, and transformable values, which reach the store
    /// as the transformer's `Data`).
    static func isExternal(_ attribute: NSAttributeDescription) -> Bool {
        attribute.allowsExternalBinaryDataStorage
            && (attribute.attributeType == .binaryDataAttributeType || attribute.attributeType == .transformableAttributeType)
    }

    /// Whether BLOBs shaped like references may be another implementation's references here.
    var readsForeignReferences: Bool { !foreignColumns.isEmpty }

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

    /// The UUID a BLOB names when it is shaped like another implementation's reference: a UUID
    /// in text form (36 characters) and non-printing framing bytes around it, 37–64 bytes in
    /// all; nil for anything else. The shape alone never makes a BLOB a reference (see the type's
    /// summary): it only says which BLOBs need the store's bookkeeping to decide.
    static func foreignReference(_ bytes: UnsafeRawBufferPointer) -> UUID? {
        guard foreignReferenceLengths.contains(bytes.count) else { return nil }
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

    /// The UUID a BLOB is shaped to name (`foreignReference`).
    static func foreignReference(_ data: Data) -> UUID? {
        guard foreignReferenceLengths.contains(data.count) else { return nil }
        return data.withUnsafeBytes(foreignReference)
    }

    /// The URL of the file a name refers to.
    func fileURL(_ name: UUID) -> URL {
        folder.appendingPathComponent(name.uuidString, isDirectory: false)
    }

    // MARK: - Reading

    /// The value of a column whose attribute stores externally, in store form: the file's bytes
    /// for a marker or for a reference the store's bookkeeping vouches for, the column's own
    /// bytes otherwise.
    ///
    /// - Parameter db: the connection the row was read on (the ownership of another
    ///   implementation's reference is checked there, in the same read).
    /// - Throws: `NSFileReadNoSuchFileError` (260) or another file error when the file is
    ///   missing or unreadable, `NSFileReadCorruptFileError` (259) when it is not of the size its
    ///   row records or the column holds a value that does not decode — never nil for a value
    ///   that exists (issue 37).
    func storeValue(_ value: DatabaseValue, type: NSAttributeType, db: Database) throws -> StoreValue {
        switch value.storage {
        case .string(let text):
            guard let marker = Self.parseMarker(text) else { return try decoded(value, type: type) }
            return .data(try read(marker.name, expectedCount: marker.byteCount))
        case .blob(let data):
            guard readsForeignReferences, let name = ownedForeignReference(data, db: db) else { return .data(data) }
            return .data(try read(name, expectedCount: nil))
        default:
            return try decoded(value, type: type)
        }
    }

    private func decoded(_ value: DatabaseValue, type: NSAttributeType) throws -> StoreValue {
        guard let decoded = SQLiteValueCoding.storeValue(value, type: type) else {
            throw SQLiteStoreErrors.unreadableRow("a value of an external-storage attribute is \(value) and no \(type.xmlName) value", url: storeURL)
        }
        return decoded
    }

    /// The bytes of an external file.
    ///
    /// - Throws: the file error when it is missing or unreadable (`NSFilePathErrorKey` names
    ///   it), `NSFileReadCorruptFileError` when it is not of the recorded size.
    func read(_ name: UUID, expectedCount: Int?) throws -> Data {
        let url = fileURL(name)
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            let underlying = error as NSError
            let code = underlying.domain == NSCocoaErrorDomain ? underlying.code : CocoaError.Code.fileReadUnknown.rawValue
            throw NSError(domain: NSCocoaErrorDomain, code: code, userInfo: [
                NSLocalizedDescriptionKey: "The external data file \(url.path) of the store \(storeURL.path) cannot be read: \(underlying.localizedDescription)",
                NSFilePathErrorKey: url.path, NSUnderlyingErrorKey: underlying,
            ])
        }
        if let expectedCount, data.count != expectedCount {
            throw NSError(domain: NSCocoaErrorDomain, code: CocoaError.Code.fileReadCorruptFile.rawValue, userInfo: [
                NSLocalizedDescriptionKey: "The external data file \(url.path) of the store \(storeURL.path) holds \(data.count) bytes, not the \(expectedCount) its row records.",
                NSFilePathErrorKey: url.path,
            ])
        }
        return data
    }

    /// The file a column's stored value owns: the file of a marker, or of another
    /// implementation's reference that owns its file (`ownedForeignReference`). It is removed
    /// when the value is replaced or its row deleted; a file no row owns is never removed.
    func referencedFile(_ value: DatabaseValue, db: Database) -> URL? {
        switch value.storage {
        case .string(let text):
            return Self.parseMarker(text).map { fileURL($0.name) }
        case .blob(let data):
            guard readsForeignReferences, let name = ownedForeignReference(data, db: db) else { return nil }
            return fileURL(name)
        default:
            return nil
        }
    }
}
