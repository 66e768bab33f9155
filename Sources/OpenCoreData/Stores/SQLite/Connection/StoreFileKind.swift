import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What a path names in the file system, read with `lstat(2)`: a final symbolic link is reported
/// as a link, never followed.
///
/// Destroying, replacing and migrating a store act only on regular files (and the support folder,
/// a directory), so `/dev/null` (Apple's in-memory convention), a FIFO, a socket or a link to any
/// of them is never removed or renamed over, whoever the process runs as: the check is the file's
/// type, not a permission.
package enum StoreFileKind: Equatable, Sendable {
    case missing
    case regular
    case directory
    case symbolicLink
    case characterDevice
    case blockDevice
    case fifo
    case socket
    case unknown

    /// The kind of the file at `path`, the final link not followed.
    package init(path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            self = .missing
            return
        }
        self.init(mode: info.st_mode)
    }

    /// The kind of the file a path leads to, links followed (what opening it would reach).
    package init(resolving path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            self = .missing
            return
        }
        self.init(mode: info.st_mode)
    }

    private init(mode: mode_t) {
        switch mode & S_IFMT {
        case S_IFREG: self = .regular
        case S_IFDIR: self = .directory
        case S_IFLNK: self = .symbolicLink
        case S_IFCHR: self = .characterDevice
        case S_IFBLK: self = .blockDevice
        case S_IFIFO: self = .fifo
        case S_IFSOCK: self = .socket
        default: self = .unknown
        }
    }

    /// Throws unless this kind, read at `url`, is one of `accepted`: `NSFileReadNoSuchFileError`
    /// (260) when nothing is there, as Apple's does; `NSPersistentStoreInvalidTypeError` (134000)
    /// naming the kind otherwise (`/dev/null`, a FIFO, a socket, a link), which was left alone.
    /// `action` is the verb of the messages ("destroy").
    package func requireStore(at url: URL, toActOn action: String, accepting accepted: [StoreFileKind] = [.regular]) throws {
        if accepted.contains(self) { return }
        guard self != .missing else {
            throw NSError(domain: NSCocoaErrorDomain, code: CocoaError.Code.fileReadNoSuchFile.rawValue, userInfo: [
                NSLocalizedDescriptionKey: "No persistent store exists at \(url.path) to \(action).", NSFilePathErrorKey: url.path,
            ])
        }
        throw CoreDataError.make(NSPersistentStoreInvalidTypeError,
                                 "Cannot \(action) the store at \(url.path): it is \(phrase), not a store file; it was left alone.",
                                 userInfo: [NSFilePathErrorKey: url.path])
    }

    /// The kind in words, for error messages ("a character device").
    package var phrase: String {
        switch self {
        case .missing: "missing"
        case .regular: "a regular file"
        case .directory: "a directory"
        case .symbolicLink: "a symbolic link"
        case .characterDevice: "a character device"
        case .blockDevice: "a block device"
        case .fifo: "a FIFO (named pipe)"
        case .socket: "a socket"
        case .unknown: "a special file"
        }
    }
}
