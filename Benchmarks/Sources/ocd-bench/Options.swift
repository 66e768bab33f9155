import Foundation

/// Command-line options of `ocd-bench`.
struct Options {
    var filter: [String]?
    var quick = false
    var iterations = 5
    var warmups = 1
    var svgPath: String?
    var markdownPath: String?
    var listOnly = false
    /// Markdown reports whose ratio tables `--svg` should chart, instead of running anything.
    var chartFrom: [String]?
    /// Comparators to run (`--comparators raw,ocd-kvc`); all when nil. For profiling one library.
    var comparators: Set<Comparator>?
    /// Where fixture stores are generated; a fresh temporary folder unless given.
    var dataDirectory: URL
    var keepData = false
    /// Set in a child process: the case and comparator to run once.
    var childCase: String?
    var childComparator: Comparator?

    static let usage = """
    usage: ocd-bench [--filter W1,W5] [--quick] [--iterations N] [--warmups N]
                     [--svg PATH] [--markdown PATH] [--comparators K,…] [--list]
                     [--data-dir DIR] [--keep-data]

      --filter W1,W5   run only these workloads (W1 selects W1-insert and W1-fetch; W1-fetch selects one case)
      --quick          small row counts and 2 iterations: checks that everything runs, times mean little
      --iterations N   measured iterations per comparator after the warm-up (default 5, quick 2)
      --warmups N      unmeasured warm-up iterations (default 1)
      --svg PATH       also write a bar chart of the ratios to raw SQLite
      --markdown PATH  also write the report as Markdown
      --comparators K  run only these comparators (raw, grdb-rows, grdb-records, ocd-kvc, ocd-typed), e.g. to profile one
      --chart-from A.md,B.md  with --svg: chart the ratio tables of earlier --markdown reports, run nothing
      --list           list the cases and exit
      --data-dir DIR   where fixture stores are made (default: a temporary folder, removed at exit)
      --keep-data      keep the fixture folder
    """

    init(arguments: [String]) throws {
        dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("ocd-bench-\(ProcessInfo.processInfo.processIdentifier)")
        var iterationsGiven = false
        var index = 0
        func value(_ name: String) throws -> String {
            index += 1
            guard index < arguments.count else { throw BenchError("\(name) needs a value\n\(Self.usage)") }
            return arguments[index]
        }
        var dataDirectoryGiven = false
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--filter":
                filter = try value(argument).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).uppercased() }.filter { !$0.isEmpty }
            case "--quick":
                quick = true
            case "--iterations":
                guard let count = Int(try value(argument)), count >= 1 else { throw BenchError("--iterations needs a positive number") }
                iterations = count
                iterationsGiven = true
            case "--warmups":
                guard let count = Int(try value(argument)), count >= 0 else { throw BenchError("--warmups needs a number ≥ 0") }
                warmups = count
            case "--svg":
                svgPath = try value(argument)
            case "--markdown":
                markdownPath = try value(argument)
            case "--comparators":
                var chosen = Set<Comparator>()
                for key in try value(argument).split(separator: ",") {
                    guard let comparator = Comparator.allCases.first(where: { $0.key == key }) else { throw BenchError("unknown comparator \(key)") }
                    chosen.insert(comparator)
                }
                comparators = chosen
            case "--chart-from":
                chartFrom = try value(argument).split(separator: ",").map(String.init)
            case "--list":
                listOnly = true
            case "--data-dir":
                dataDirectory = URL(fileURLWithPath: try value(argument))
                dataDirectoryGiven = true
            case "--keep-data":
                keepData = true
            case "--child":
                childCase = try value(argument)
            case "--comparator":
                let key = try value(argument)
                guard let comparator = Comparator.allCases.first(where: { $0.key == key }) else { throw BenchError("unknown comparator \(key)") }
                childComparator = comparator
            case "-h", "--help":
                print(Self.usage)
                exit(0)
            default:
                throw BenchError("unknown argument '\(argument)'\n\(Self.usage)")
            }
            index += 1
        }
        if quick && !iterationsGiven { iterations = 2 }
        if dataDirectoryGiven || childCase != nil { keepData = true }
    }

    /// Whether a case id is selected by `--filter`.
    func selects(_ id: String) -> Bool {
        guard let filter else { return true }
        let upper = id.uppercased()
        return filter.contains { upper == $0 || upper.hasPrefix($0 + "-") }
    }

    /// Whether any case of a workload (`W1`) is selected.
    func selectsWorkload(_ workload: String) -> Bool {
        guard let filter else { return true }
        return filter.contains { $0 == workload || $0.hasPrefix(workload + "-") }
    }
}
