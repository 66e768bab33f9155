import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// `OCD_BEGINSWITH` and `OCD_ENDSWITH` compare ASCII text on SQLite's bytes; every other value
/// goes through `StringMatching`. Both paths must give memory's answer.
@Suite("SQLite string functions agree with memory")
struct SQLiteStringFunctionTests {
    static let subjects: [String] = [
        "", "a", "Apple", "apple pie", "APPLE", "\r\n", "a\r\nb", "a\r", "\nb", "x\r\n",
        "ſun", "Kelvin", "\u{212A}elvin", "é", "e\u{301}", "ée", "Straße", "STRASSE", "😀 smile", "smile 😀",
    ]
    static let affixes: [String] = [
        "", "a", "A", "app", "APPLE", "apple pie and more", "\r", "\n", "\r\n", "a\r", "\nb",
        "s", "sun", "k", "\u{212A}", "e", "é", "e\u{301}", "ss", "😀", "smile",
    ]
    static let optionSets: [NSComparisonPredicate.Options] = [
        [], .caseInsensitive, .diacriticInsensitive, [.caseInsensitive, .diacriticInsensitive], .normalized,
    ]

    @Test("Text arguments: every subject, affix and option set")
    func textArguments() throws {
        let queue = try DatabaseQueue()
        try queue.inDatabase { db in
            SQLiteFunctions.register(in: db)
            for options in Self.optionSets {
                for subject in Self.subjects {
                    for affix in Self.affixes {
                        let arguments: StatementArguments = [subject, affix, Int64(options.rawValue)]
                        let begins = try Bool.fetchOne(db, sql: "SELECT OCD_BEGINSWITH(?, ?, ?)", arguments: arguments)
                        let ends = try Bool.fetchOne(db, sql: "SELECT OCD_ENDSWITH(?, ?, ?)", arguments: arguments)
                        #expect(begins == StringMatching.beginsWith(subject, affix, options: options),
                                "\(subject.debugDescription) BEGINSWITH \(affix.debugDescription) \(options.rawValue)")
                        #expect(ends == StringMatching.endsWith(subject, affix, options: options),
                                "\(subject.debugDescription) ENDSWITH \(affix.debugDescription) \(options.rawValue)")
                    }
                }
            }
        }
    }

    @Test("Other values: NULL is false, numbers and blobs are read as text")
    func otherValues() throws {
        let queue = try DatabaseQueue()
        try queue.inDatabase { db in
            SQLiteFunctions.register(in: db)
            let calls = [
                "OCD_BEGINSWITH(NULL, 'a', 0)", "OCD_BEGINSWITH('a', NULL, 0)", "OCD_BEGINSWITH(123, '12', 0)",
                "OCD_BEGINSWITH('123', 12, 0)", "OCD_BEGINSWITH(1.5, '1.', 0)", "OCD_BEGINSWITH(x'616263', 'ab', 0)",
                "OCD_BEGINSWITH(x'', 'a', 0)", "OCD_ENDSWITH(123, 23, 0)",
            ]
            var answers: [Bool?] = []
            for call in calls { answers.append(try Bool.fetchOne(db, sql: "SELECT " + call)) }
            #expect(answers == [false, false, true, true, true, true, false, true])
        }
    }
}
