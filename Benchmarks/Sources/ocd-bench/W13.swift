import Foundation
import OpenCoreData

// W13: how soon a process sees another process's saves. A writer child process saves `Ping`
// rows one at a time (one save each, 5 ms apart), each stamped with the wall-clock time of its
// save; this process learns of each one and reads it back, and the latency of a row is the
// time from its stamp to then. OpenCoreData: NSPersistentStoreRemoteChange, then the
// persistent history after the last token, then the inserted object's `sentAt`. Raw SQLite:
// `PRAGMA data_version` polled every millisecond and the new rows selected (a floor). GRDB
// observes only writes made through its own connection, so it has no variant. W13-median and
// W13-p99 run the same experiment and report one statistic each as their time.

enum W13 {
    static let writerVariable = "OCDBENCH_W13_WRITER"
    static let spacing: TimeInterval = 0.005

    /// The Ping model: a number and the time its save began.
    static func model() -> NSManagedObjectModel {
        let ping = Models.entity("Ping", typed: nil, [Models.attribute("n", .integer64AttributeType, optional: false, defaultValue: 0),
                                                       Models.attribute("sentAt", .doubleAttributeType, optional: false, defaultValue: 0)])
        return Models.model([ping], classes: [], style: .kvc)
    }

    static var historyOptions: [AnyHashable: Any] { [NSPersistentHistoryTrackingKey: true] }

    // MARK: - The writer process

    /// Runs the writer when this process was started as one (`OCDBENCH_W13_WRITER=mode:count:path`).
    static func runWriterIfAsked() -> Int32? {
        guard let spec = ProcessInfo.processInfo.environment[writerVariable] else { return nil }
        let parts = spec.split(separator: ":", maxSplits: 2).map(String.init)
        guard parts.count == 3, let count = Int(parts[1]) else { return 2 }
        do {
            if parts[0] == "raw" { try rawWriter(path: parts[2], count: count) } else { try ocdWriter(path: parts[2], count: count) }
            return 0
        } catch {
            Progress.note("W13 writer: \(error)")
            return 1
        }
    }

    private static func ocdWriter(path: String, count: Int) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model())
        try coordinator.addPersistentStore(type: .sqlite, at: URL(fileURLWithPath: path), options: historyOptions)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        context.transactionAuthor = "writer"
        for n in 0..<count {
            try context.performAndWait {
                let ping = NSEntityDescription.insertNewObject(forEntityName: "Ping", into: context)
                ping.setValue(NSNumber(value: n), forKey: "n")
                ping.setValue(NSNumber(value: Date().timeIntervalSince1970), forKey: "sentAt")
                try context.save()
                context.reset()
            }
            Thread.sleep(forTimeInterval: spacing)
        }
    }

    private static func rawWriter(path: String, count: Int) throws {
        let db = try RawDatabase(path: path)
        let insert = try db.prepare("INSERT INTO ping (n, sentAt) VALUES (?, ?)")
        for n in 0..<count {
            insert.reset()
            insert.bind(Int64(n), at: 1)
            insert.bind(Date().timeIntervalSince1970, at: 2)
            try insert.run()
            Thread.sleep(forTimeInterval: spacing)
        }
    }

    /// Starts this binary as a writer.
    private static func startWriter(mode: String, count: Int, path: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["--list"]
        var environment = ProcessInfo.processInfo.environment
        environment[writerVariable] = "\(mode):\(count):\(path)"
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return process
    }

    // MARK: - The observers

    /// Latencies of `count` saves seen through remote-change notifications and history.
    static func ocdLatencies(_ bench: Bench, count: Int) throws -> [Double] {
        let url = bench.url("w13-ocd.sqlite")
        Bench.removeStore(url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model())
        let options = historyOptions.merging([NSPersistentStoreRemoteChangeNotificationPostOptionKey: true]) { $1 }
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        defer { for store in coordinator.persistentStores { try? coordinator.remove(store) } }
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let signal = DispatchSemaphore(value: 0)
        let observer = NotificationCenter.default.addObserver(forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil) { _ in
            signal.signal()
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        var token = coordinator.currentPersistentHistoryToken(fromStores: nil)
        let writer = try startWriter(mode: "ocd", count: count, path: url.path)
        var latencies: [Double] = []
        while latencies.count < count {
            guard signal.wait(timeout: .now() + 30) == .success else { throw BenchError("W13: no remote change for 30 s (\(latencies.count) of \(count) seen)") }
            try context.performAndWait {
                let request = NSPersistentHistoryChangeRequest.fetchHistory(after: token)
                let transactions = (try context.execute(request) as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction] ?? []
                for transaction in transactions {
                    for change in transaction.changes ?? [] where change.changeType == .insert {
                        let ping = try context.existingObject(with: change.changedObjectID)
                        let sentAt = (ping.value(forKey: "sentAt") as? NSNumber)?.doubleValue ?? 0
                        latencies.append(Date().timeIntervalSince1970 - sentAt)
                    }
                }
                token = transactions.last?.token ?? token
                context.reset()
            }
        }
        writer.waitUntilExit()
        return latencies
    }

    /// Latencies of `count` raw inserts seen by polling `PRAGMA data_version` every millisecond.
    static func rawLatencies(_ bench: Bench, count: Int) throws -> [Double] {
        let url = bench.url("w13-raw.sqlite")
        Bench.removeStore(url)
        let db = try RawDatabase(path: url.path)
        try db.execute("CREATE TABLE ping (n INTEGER PRIMARY KEY, sentAt REAL NOT NULL)")
        let version = try db.prepare("PRAGMA data_version")
        let select = try db.prepare("SELECT n, sentAt FROM ping WHERE n > ? ORDER BY n")
        func dataVersion() throws -> Int64 {
            version.reset()
            _ = try version.step()
            return version.int64(0)
        }
        var last = try dataVersion()
        var lastRow: Int64 = -1
        let writer = try startWriter(mode: "raw", count: count, path: url.path)
        var latencies: [Double] = []
        let deadline = Date().addingTimeInterval(Double(count) * spacing * 4 + 30)
        while latencies.count < count && Date() < deadline {
            let now = try dataVersion()
            if now != last {
                last = now
                select.reset()
                select.bind(lastRow, at: 1)
                while try select.step() {
                    lastRow = select.int64(0)
                    latencies.append(Date().timeIntervalSince1970 - select.double(1))
                }
            }
            Thread.sleep(forTimeInterval: 0.001)
        }
        writer.waitUntilExit()
        try check(latencies.count == count, "raw W13 saw \(latencies.count) of \(count) inserts")
        return latencies
    }

    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
    }

    // MARK: - Cases

    static func cases(_ bench: Bench) throws -> [BenchCase] {
        let count = bench.sizes.w13Saves
        var cases: [BenchCase] = []
        for (id, fraction) in [("W13-median", 0.5), ("W13-p99", 0.99)] where bench.options.selects(id) {
            let unavailable = Variant.notAvailable("GRDB observes only its own connection's writes, not another process's")
            cases.append(BenchCase(
                id: id,
                summary: "\(fraction == 0.5 ? "median" : "99th-percentile") latency from another process's save of one row (\(count) saves, 5 ms apart) to reading it here; OCD: remote-change notification + persistent history + the object; raw: PRAGMA data_version polled every 1 ms + SELECT",
                variants: [
                    .raw: .run { percentile(try rawLatencies(bench, count: count), fraction) },
                    .grdbRows: unavailable, .grdbRecords: unavailable,
                    .ocdKVC: .run { percentile(try ocdLatencies(bench, count: count), fraction) },
                    .ocdTyped: .notAvailable("the same path as OCD KVC (history and KVC reads)"),
                ]))
        }
        return cases
    }
}
