import Foundation
import GRDB
import GRDBSQLite

/// The SQL functions and collations that let SQLite evaluate predicates and sorts exactly as
/// memory does: each calls the in-memory engine's own code, so the two cannot disagree.
///
/// Registered on every connection of a store (`SQLiteStoreFunctions.register(in:)`). Functions
/// that depend only on their arguments are deterministic (`SQLITE_DETERMINISTIC`), so SQLite
/// computes a call on constants once per statement. See <https://www.sqlite.org/c3ref/create_function.html>
/// and <https://www.sqlite.org/datatype3.html#collating_sequences>.
package enum SQLiteFunctions {
    /// The registered scalar functions.
    package enum Name: String, CaseIterable {
        /// `OCD_FOLD(text, options)`: `[c]`/`[d]` folding (`StringMatching.fold`).
        case fold = "OCD_FOLD"
        /// `OCD_BEGINSWITH(subject, prefix, options)` → 0 or 1.
        case beginsWith = "OCD_BEGINSWITH"
        /// `OCD_ENDSWITH(subject, suffix, options)` → 0 or 1.
        case endsWith = "OCD_ENDSWITH"
        /// `OCD_CONTAINS(string, substring, options)` → 0 or 1.
        case contains = "OCD_CONTAINS"
        /// `OCD_LIKE(subject, pattern, options)` → 0 or 1 (`*`, `?`, `\` as in memory).
        case like = "OCD_LIKE"
        /// `OCD_MATCHES(subject, pattern, options)` → 0 or 1 (whole-string ICU regular expression).
        case matches = "OCD_MATCHES"
        /// `OCD_LENGTH(text)`: the UTF-16 length, as `NSString.length`.
        case utf16Length = "OCD_LENGTH"
        /// `OCD_RANDOM()`: a Double in [0, 1), drawn per row like memory draws per object.
        case random = "OCD_RANDOM"
        /// `OCD_STRING(integer)`: `CAST(x, 'NSString')` of an integer, printed as memory prints it.
        case integerString = "OCD_STRING"
        /// `OCD_FLOAT(real)`: a float attribute's value as memory sees it, `Double(Float(x))`
        /// (the column may hold a double that is not a float, when it was set from one).
        case float = "OCD_FLOAT"

        var argumentCount: Int32 {
            switch self {
            case .fold: 2
            case .beginsWith, .endsWith, .contains, .like, .matches: 3
            case .utf16Length, .integerString, .float: 1
            case .random: 0
            }
        }
    }

    /// `NSExpression` functions evaluated in SQL by `FunctionEvaluator` itself, by selector.
    package static let builtinFunctions: [String: Int] = [
        "abs:": 1, "sqrt:": 1, "log:": 1, "ln:": 1, "exp:": 1, "ceiling:": 1, "floor:": 1, "trunc:": 1,
        "raise:toPower:": 2, "modulus:by:": 2,
        "bitwiseAnd:with:": 2, "bitwiseOr:with:": 2, "bitwiseXor:with:": 2, "leftshift:by:": 2, "rightshift:by:": 2,
        "onesComplement:": 1,
        "lowercase:": 1, "uppercase:": 1, "canonical:": 1,
    ]

    /// The SQL name of a builtin function: `raise:toPower:` → `OCD_RAISE_TOPOWER`.
    package static func sqlName(ofBuiltin selector: String) -> String {
        "OCD_" + selector.split(separator: ":").joined(separator: "_").uppercased()
    }

    // MARK: - Collations

    /// The collation of each sort selector, and `compare:`'s for string comparisons.
    package static func collation(forSelector selector: String) -> String {
        switch selector {
        case "caseInsensitiveCompare:": "OCD_CASEINSENSITIVE"
        case "localizedCompare:": "OCD_LOCALIZED"
        case "localizedCaseInsensitiveCompare:": "OCD_LOCALIZEDCASEINSENSITIVE"
        case "localizedStandardCompare:": "OCD_LOCALIZEDSTANDARD"
        default: compareCollation
        }
    }

    /// Swift's `String` order (`<` and `==`, canonical equivalence), which is `compare:`'s order
    /// for strings: "é" written precomposed or decomposed is one string in memory, two in BINARY.
    package static let compareCollation = "OCD_COMPARE"

    private static let selectors = ["compare:", "caseInsensitiveCompare:", "localizedCompare:",
                                    "localizedCaseInsensitiveCompare:", "localizedStandardCompare:"]

    /// Whether BINARY equality with this string is exactly Swift's `==`: true for ASCII strings
    /// without the three ASCII characters that a non-ASCII character decomposes to canonically
    /// (KELVIN SIGN → K, GREEK QUESTION MARK → ;, GREEK VARIA → `). Such comparisons keep
    /// SQLite's plain `=`, which can use an index; the others use `OCD_COMPARE`.
    package static func isBinarySafe(_ string: String) -> Bool {
        string.utf8.allSatisfy { $0 < 0x80 && $0 != UInt8(ascii: "K") && $0 != UInt8(ascii: ";") && $0 != UInt8(ascii: "`") }
    }

    /// `isBinarySafe` for a bound value (non-text values are compared by SQLite exactly).
    package static func isBinarySafe(_ value: SQLValue) -> Bool {
        if case .text(let string) = value { return isBinarySafe(string) }
        return true
    }

    // MARK: - Registration

    /// Registers every function and collation on a connection.
    package static func register(in db: Database) {
        for function in functions { registerFunction(function, in: db) }
        for collation in collations { db.add(collation: collation) }
        // OCD_COMPARE orders every string sort and most string comparisons: registered with the C
        // API so two ASCII strings compare with memcmp, without building Swift strings.
        sqlite3_create_collation_v2(db.sqliteConnection, compareCollation, SQLITE_UTF8, nil, compareStrings, nil)
        // BEGINSWITH and ENDSWITH run per row in prefix searches: registered with the C API so
        // ASCII text is compared on SQLite's own bytes, without building Swift strings or arrays.
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        sqlite3_create_function_v2(db.sqliteConnection, Name.beginsWith.rawValue, 3, flags, nil, beginsWithFunction, nil, nil, nil)
        sqlite3_create_function_v2(db.sqliteConnection, Name.endsWith.rawValue, 3, flags, nil, endsWithFunction, nil, nil, nil)
    }

    /// The functions registered with the C API rather than as GRDB `DatabaseFunction`s.
    private static let cFunctions: Set<Name> = [.beginsWith, .endsWith]

    private typealias CFunction = @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void

    private static let beginsWithFunction: CFunction = { context, _, arguments in
        sqlite3_result_int(context, affixTest(arguments, atEnd: false) ? 1 : 0)
    }

    private static let endsWithFunction: CFunction = { context, _, arguments in
        sqlite3_result_int(context, affixTest(arguments, atEnd: true) ? 1 : 0)
    }

    /// `OCD_BEGINSWITH`/`OCD_ENDSWITH(subject, affix, options)`: bytes for ASCII text,
    /// `StringMatching` for the rest; false unless both sides have a value.
    private static func affixTest(_ arguments: UnsafeMutablePointer<OpaquePointer?>?, atEnd: Bool) -> Bool {
        guard let arguments, let subject = arguments[0], let affix = arguments[1], let optionsValue = arguments[2] else { return false }
        let options = NSComparisonPredicate.Options(rawValue: UInt(truncatingIfNeeded: sqlite3_value_int64(optionsValue)))
        if sqlite3_value_type(subject) == SQLITE_TEXT, sqlite3_value_type(affix) == SQLITE_TEXT,
           let answer = StringMatching.asciiAffix(bytes(subject), bytes(affix), atEnd: atEnd, options) {
            return answer
        }
        guard let subject = text(subject), let affix = text(affix) else { return false }
        return atEnd ? StringMatching.endsWith(subject, affix, options: options) : StringMatching.beginsWith(subject, affix, options: options)
    }

    /// A value's UTF-8 text, valid until the value changes.
    private static func bytes(_ value: OpaquePointer) -> UnsafeRawBufferPointer {
        let start = sqlite3_value_text(value)
        return UnsafeRawBufferPointer(start: start, count: start == nil ? 0 : Int(sqlite3_value_bytes(value)))
    }

    /// A function argument as a string, converted as `text(_: DatabaseValue)` converts it.
    private static func text(_ value: OpaquePointer) -> String? {
        switch sqlite3_value_type(value) {
        case SQLITE_NULL: nil
        case SQLITE_INTEGER: String(sqlite3_value_int64(value))
        case SQLITE_FLOAT: String(sqlite3_value_double(value))
        case SQLITE_BLOB:
            String(decoding: UnsafeRawBufferPointer(start: sqlite3_value_blob(value), count: Int(sqlite3_value_bytes(value))), as: UTF8.self)
        default: String(decoding: bytes(value), as: UTF8.self)
        }
    }

    private static let collations: [DatabaseCollation] = selectors.filter { $0 != "compare:" }.map { selector in
        DatabaseCollation(collation(forSelector: selector)) { lhs, rhs in
            SortComparison.compare(lhs, rhs, selector: selector)
        }
    }

    /// `OCD_COMPARE`: Swift's `String` order. For ASCII text that is the bytes' order (ASCII is
    /// NFC and Swift compares NFC scalars), so only non-ASCII text builds Swift strings.
    private static let compareStrings: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32, UnsafeRawPointer?) -> Int32 = {
        _, length1, bytes1, length2, bytes2 in
        let lhs = UnsafeRawBufferPointer(start: bytes1, count: Int(length1))
        let rhs = UnsafeRawBufferPointer(start: bytes2, count: Int(length2))
        if isASCII(lhs) && isASCII(rhs) {
            let common = min(lhs.count, rhs.count)
            if common > 0, let left = lhs.baseAddress, let right = rhs.baseAddress {
                let order = memcmp(left, right, common)
                if order != 0 { return order < 0 ? -1 : 1 }
            }
            return lhs.count == rhs.count ? 0 : (lhs.count < rhs.count ? -1 : 1)
        }
        let order = SortComparison.compare(String(decoding: lhs, as: UTF8.self), String(decoding: rhs, as: UTF8.self), selector: "compare:")
        return Int32(order.rawValue)
    }

    private static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var offset = 0
        while offset + 8 <= bytes.count {
            if base.loadUnaligned(fromByteOffset: offset, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            offset += 8
        }
        while offset < bytes.count {
            if base.load(fromByteOffset: offset, as: UInt8.self) >= 0x80 { return false }
            offset += 1
        }
        return true
    }

    /// Registered with the C API by `registerFunction` (SQLiteFunctions+Registration.swift), not
    /// as GRDB `DatabaseFunction`s, whose text arguments and results end at the first U+0000.
    private static let functions: [FunctionSpec] = {
        var functions = Name.allCases.filter { !cFunctions.contains($0) }.map { name in
            FunctionSpec(name: name.rawValue, argumentCount: name.argumentCount, isPure: name != .random) { arguments in
                try evaluate(name, arguments)
            }
        }
        for (selector, arity) in builtinFunctions.sorted(by: { $0.key < $1.key }) {
            functions.append(FunctionSpec(name: sqlName(ofBuiltin: selector), argumentCount: Int32(arity), isPure: true) { arguments in
                databaseValue(FunctionEvaluator.call(selector, arguments.map(value)))
            })
        }
        return functions
    }()

    private static func evaluate(_ name: Name, _ arguments: [DatabaseValue]) throws -> DatabaseValueConvertible? {
        if name == .random { return Double.random(in: 0..<1) }
        if name == .utf16Length { return text(arguments[0]).map { $0.utf16.count } }
        if name == .integerString { return databaseValue(PredicateValue.cast(value(arguments[0]), to: "NSString")) }
        if name == .float { return Double.fromDatabaseValue(arguments[0]).map { Double(Float($0)) } }
        let options = NSComparisonPredicate.Options(rawValue: UInt(SQLiteValueCoding.integer(arguments.last ?? .null) ?? 0))
        if name == .fold { return text(arguments[0]).map { StringMatching.fold($0, options) } }
        guard let subject = text(arguments[0]), let other = text(arguments[1]) else { return 0 }
        let result: Bool
        switch name {
        case .contains: result = StringMatching.contains(subject, other, options: options)
        case .like: result = StringMatching.like(subject, pattern: other, options: options)
        // A regular expression past its time bound fails the statement, so the fetch throws.
        case .matches: result = try RegexBudget.enforce { StringMatching.matches(subject, pattern: other, options: options) }
        // BEGINSWITH and ENDSWITH are registered with the C API (`affixTest`), not through here.
        case .beginsWith, .endsWith, .fold, .utf16Length, .random, .integerString, .float: return nil
        }
        return result ? 1 : 0
    }

    /// A string column's value as the row decoder reads it (TEXT, or another type converted).
    private static func text(_ value: DatabaseValue) -> String? {
        switch value.storage {
        case .string(let string): string
        case .int64(let int): String(int)
        case .double(let double): String(double)
        case .blob(let data): String(decoding: data, as: UTF8.self)
        case .null: nil
        }
    }

    /// A SQL value as the in-memory evaluator would see a number or string.
    private static func value(_ value: DatabaseValue) -> Any? {
        switch value.storage {
        case .null: nil
        case .int64(let int): int
        case .double(let double): double
        case .string(let string): string
        case .blob(let data): data
        }
    }

    /// A function result as a SQL value.
    private static func databaseValue(_ value: Any?) -> DatabaseValueConvertible? {
        guard let value = PredicateValue.unwrap(value) else { return nil }
        if let number = PredicateNumber(value) {
            switch number {
            case .int(let int): return int
            case .uint(let uint): return Double(uint)
            case .double(let double): return double.isNaN ? nil : double
            case .decimal(let decimal): return SQLValueCoding.double(from: decimal)
            }
        }
        if let string = PredicateValue.string(value) { return string }
        return nil
    }
}
