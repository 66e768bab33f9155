import Dispatch
import Foundation
import GRDB
import Synchronization

/// Watches a SQLite file for commits made by any connection — this process's or another's —
/// by reading `PRAGMA data_version` on a connection of its own on a timer.
///
/// SQLite changes a connection's `data_version` whenever another connection has committed since
/// its last read; this connection never writes, so every commit to the file shows. A read of
/// the pragma costs a few microseconds and no I/O beyond the WAL index, so polling every
/// ``interval`` is cheaper and more portable than file-system notifications (which Linux gives
/// for the `-wal` file only on some file systems). A commit is seen within one interval.
///
/// `@unchecked Sendable`: the connection and the last version are touched only on `queue`
/// (the timer's queue); `timer` is set once in `init` and cancelled in `deinit`.
final class SQLiteChangeMonitor: @unchecked Sendable {
    /// How often the file is checked; the most a commit waits before it is reported.
    static let interval: DispatchTimeInterval = .milliseconds(50)

    private let queue = DispatchQueue(label: "OpenCoreData.SQLiteChangeMonitor")
    private let connection: DatabaseQueue
    private var lastVersion: Int?
    private var timer: (any DispatchSourceTimer)?

    /// Starts watching the store file at `path`; `onChange` runs on a private queue after each
    /// batch of commits seen.
    /// - Throws: when the file cannot be opened for reading.
    init(path: String, busyTimeout: TimeInterval, onChange: @escaping @Sendable () -> Void) throws {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(busyTimeout)
        configuration.label = "OpenCoreData.SQLiteChangeMonitor"
        connection = try DatabaseQueue(path: path, configuration: configuration)
        lastVersion = try connection.inDatabase { db in try Int.fetchOne(db, sql: "PRAGMA data_version") }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + Self.interval, repeating: Self.interval, leeway: .milliseconds(10))
        timer.setEventHandler { [weak self] in
            guard let self, self.check() else { return }
            onChange()
        }
        self.timer = timer
        timer.resume()
    }

    /// Whether the file changed since the last check (on `queue`).
    private func check() -> Bool {
        // A locked or busy file is checked again at the next tick.
        guard let version = try? connection.inDatabase({ db in try Int.fetchOne(db, sql: "PRAGMA data_version") }) else { return false }
        defer { lastVersion = version }
        return lastVersion != nil && version != lastVersion
    }

    /// Stops watching and closes the connection; waits for a check in progress.
    func stop() {
        queue.sync {
            timer?.cancel()
            timer = nil
            try? connection.close()
        }
    }

    deinit {
        timer?.cancel()
    }
}
