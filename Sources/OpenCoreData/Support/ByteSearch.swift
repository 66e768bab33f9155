import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Finding a byte string in a large buffer (an executable's file, tens of megabytes in a debug
/// build) with the C library's `memchr` and `memcmp` (`memmem` is a GNU extension Swift's Glibc
/// module does not export); `Data.range(of:)` is far slower there.
package enum ByteSearch {
    /// Whether `needle` occurs in `haystack`.
    package static func contains(_ haystack: Data, _ needle: Data) -> Bool {
        guard !needle.isEmpty else { return true }
        guard haystack.count >= needle.count else { return false }
        return haystack.withUnsafeBytes { (hay: UnsafeRawBufferPointer) -> Bool in
            needle.withUnsafeBytes { (pin: UnsafeRawBufferPointer) -> Bool in
                // Invariant: both buffers are non-empty (checked above), so their base addresses
                // are non-nil; every memchr and memcmp below reads inside `hay` (a candidate
                // start is at most `hay.count - pin.count`) and inside `pin`.
                guard let hayBase = hay.baseAddress, let pinBase = pin.baseAddress else { return false }
                let first = Int32(pin[0])
                let lastStart = hay.count - pin.count
                var offset = 0
                while offset <= lastStart {
                    guard let found = memchr(hayBase + offset, first, lastStart - offset + 1) else { return false }
                    let start = hayBase.distance(to: UnsafeRawPointer(found))
                    if memcmp(hayBase + start, pinBase, pin.count) == 0 { return true }
                    offset = start + 1
                }
                return false
            }
        }
    }
}
