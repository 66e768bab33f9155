import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a command writes text: standard output or error, a file, or a string (in tests).
public protocol TextSink: AnyObject {
    /// Appends text; may buffer.
    func write(_ text: String) throws
    /// Writes out whatever is buffered.
    func flush() throws
}

extension TextSink {
    /// Appends text and a newline.
    public func line(_ text: String = "") throws {
        try write(text)
        try write("\n")
    }
}

// MARK: - FileSink

private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}

private func systemClose(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}

/// A buffered writer on a file descriptor, so streaming output costs one `write(2)` per 64 KiB.
public final class FileSink: TextSink {
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private let label: String
    private var buffer: [UInt8] = []
    private var isClosed = false
    private let capacity = 1 << 16

    /// A sink over a descriptor the caller keeps open (standard output or error).
    public init(descriptor: Int32, label: String) {
        self.descriptor = descriptor
        self.ownsDescriptor = false
        self.label = label
        buffer.reserveCapacity(capacity)
    }

    private init(ownedDescriptor: Int32, label: String) {
        self.descriptor = ownedDescriptor
        self.ownsDescriptor = true
        self.label = label
        buffer.reserveCapacity(capacity)
    }

    /// Standard output.
    public static func standardOutput() -> FileSink { FileSink(descriptor: STDOUT_FILENO, label: "standard output") }

    /// Standard error.
    public static func standardError() -> FileSink { FileSink(descriptor: STDERR_FILENO, label: "standard error") }

    /// Creates (or truncates) a file for writing.
    /// - Throws: `ToolError` naming the path and the system's reason.
    public static func create(path: String) throws -> FileSink {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else {
            throw ToolError("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        return FileSink(ownedDescriptor: descriptor, label: path)
    }

    /// Whether the descriptor is a terminal.
    public var isTerminal: Bool { isatty(descriptor) == 1 }

    public func write(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= capacity { try flush() }
    }

    public func flush() throws {
        var offset = 0
        while offset < buffer.count {
            let written = buffer.withUnsafeBytes { bytes in
                systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                buffer.removeAll(keepingCapacity: true)
                throw ToolError("cannot write to \(label): \(reason)")
            }
            offset += written
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes and closes a file this sink opened.
    public func close() throws {
        try flush()
        guard !isClosed else { return }
        isClosed = true
        if ownsDescriptor, systemClose(descriptor) != 0 {
            throw ToolError("cannot close \(label): \(String(cString: strerror(errno)))")
        }
    }

    deinit {
        guard !isClosed else { return }
        try? flush()
        if ownsDescriptor { _ = systemClose(descriptor) }
    }
}

// MARK: - StringSink

/// Collects text in memory (tests, and documents built before they are printed).
public final class StringSink: TextSink {
    /// Everything written so far.
    public private(set) var text = ""

    public init() {}

    public func write(_ text: String) throws { self.text += text }

    public func flush() throws {}
}
