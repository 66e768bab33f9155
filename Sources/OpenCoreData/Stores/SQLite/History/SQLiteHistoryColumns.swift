import Foundation

/// OpenCoreData's encoding of `ACHANGE.ZCOLUMNS`: what an update changed, and the preserved
/// values of a deleted row.
///
/// Apple's encoding of the column is not known from evidence (the Apple-written stores here hold
/// inserts only, whose `ZCOLUMNS` is NULL). OpenCoreData writes a binary property list
/// (docs/StoreFormat.md, "Persistent history"):
/// - an update: `{"OCDUpdated": [property name, …]}`;
/// - a delete with preserved values: `{"OCDTombstone": {attribute name: value, …}}`, values as
///   property-list types (UUIDs, URLs and decimals as strings; NULLs left out).
///
/// Reading is tolerant: NULL, another writer's bytes, or a list that is not what is expected
/// give nil (`updatedProperties` nil), never an error.
package enum SQLiteHistoryColumns {
    private static let updatedKey = "OCDUpdated"
    private static let tombstoneKey = "OCDTombstone"

    /// The encoding of an update's changed property names.
    package static func encode(updated names: [String]) -> Data? {
        try? PropertyListSerialization.data(fromPropertyList: [updatedKey: names] as NSDictionary, format: .binary, options: 0)
    }

    /// The encoding of a delete's preserved values; nil when there are none.
    package static func encode(tombstone values: [String: StoreValue]) -> Data? {
        var dictionary: [String: Any] = [:]
        for (name, value) in values {
            if let encoded = propertyListValue(value) { dictionary[name] = encoded }
        }
        guard !dictionary.isEmpty else { return nil }
        return try? PropertyListSerialization.data(fromPropertyList: [tombstoneKey: dictionary] as NSDictionary, format: .binary, options: 0)
    }

    /// What a `ZCOLUMNS` value says; nil parts when it says nothing readable.
    package static func decode(_ data: Data?) -> (updated: [String]?, tombstone: [String: Any]?) {
        guard let data, data.starts(with: Array("bplist".utf8)),
              let plist = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil),
              let dictionary = plist as? [String: Any] else { return (nil, nil) }
        let updated = (dictionary[updatedKey] as? [Any]).flatMap { list -> [String]? in
            let names = list.compactMap { $0 as? String }
            return names.count == list.count ? names : nil
        }
        return (updated, dictionary[tombstoneKey] as? [String: Any])
    }

    private static func propertyListValue(_ value: StoreValue) -> Any? {
        switch value {
        case .null, .unloaded, .objectID, .objectIDs: return nil
        case .int(let int): return NSNumber(value: int)
        case .double(let double): return NSNumber(value: double)
        case .string(let string): return string
        case .date(let date): return date
        case .data(let data): return data
        case .uuid(let uuid): return uuid.uuidString
        case .decimal(let decimal): return "\(decimal)"
        case .uri(let url): return url.absoluteString
        }
    }
}
