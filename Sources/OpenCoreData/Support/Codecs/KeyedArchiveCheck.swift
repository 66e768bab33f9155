import Foundation

/// Decides whether Foundation's unarchiver may read some bytes.
package enum KeyedArchiveCheck {
    /// Whether `data` is a keyed archive, readable by OpenCoreData's bounds-checked reader, whose
    /// classes all exist in this process. Stores read on Linux usually hold the app's own
    /// `NSCoding` types: Foundation's unarchiver would log a line for each such value, and it can
    /// trap on corrupt property lists (store files come from outside).
    package static func isReadable(_ data: Data) -> Bool {
        guard data.starts(with: Array("bplist00".utf8)),
              let archive = try? PropertyListReader.propertyList(from: data) as? [String: Any],
              let objects = archive["$objects"] as? [Any] else { return false }
        for case let object as [String: Any] in objects {
            if let name = object["$classname"] as? String, NSClassFromString(name) == nil { return false }
        }
        return true
    }
}
