import Foundation
import OpenCoreData

/// Runs the model's validation (`validateForUpdate()`) over every object of a store.
enum StoreValidator {
    /// Every violation, entity by entity in primary-key order, and the number of objects checked.
    static func validate(session: StoreSession, batchSize: Int = 500) throws -> (violations: [Violation], checked: Int) {
        let walker = try StoreWalker(session: session, batchSize: batchSize)
        var violations: [Violation] = []
        var checked = 0
        try walker.forEachPage { _, objects in
            for object in objects {
                checked += 1
                do {
                    try object.validateForUpdate()
                } catch {
                    // A rule that failed on a value the store could not give is no violation:
                    // the read error stops the command instead.
                    try session.throwReadFailure()
                    violations.append(contentsOf: Violation.list(from: error, object: object))
                }
            }
        }
        return (violations, checked)
    }

    static func text(_ violations: [Violation], checked: Int) -> String {
        guard !violations.isEmpty else { return "\(checked) objects checked, no violations\n" }
        var table = TextTable(headers: ["entity", "object", "key", "code", "message"], maximumCellWidth: 100)
        for violation in violations {
            table.append([violation.entity, violation.uri, violation.key, String(violation.code), violation.message])
        }
        return table.render() + "\(violations.count) \(violations.count == 1 ? "violation" : "violations") in \(checked) objects\n"
    }

    static func json(_ violations: [Violation], checked: Int) -> JSONValue {
        .object(JSONObject([
            ("checked", .integer(checked)),
            ("violations", .array(violations.map { violation in
                .object(JSONObject([
                    ("entity", .string(violation.entity)), ("object", .string(violation.uri)),
                    ("key", violation.key.map(JSONValue.string) ?? .null), ("code", .integer(violation.code)),
                    ("message", .string(violation.message)),
                ]))
            })),
        ]))
    }
}
