import Foundation

/// The dependency rules between the library's folders, checked over the source text.
///
/// Each folder of `Sources/OpenCoreData` declares types; a rule names folders whose code must
/// not mention the types (or identifiers) that other folders declare. Declarations are the
/// top-level `class`/`struct`/`enum`/`protocol`/`actor`/`typealias` of each file (nested types
/// are reached through their parent's name, so the parent is enough); uses are whole words in
/// the code with comments and string literals removed.
struct LayerCheck {
    /// Code under `folder` must not mention the types declared under any of `forbidden`, nor any
    /// of `identifiers`.
    struct Rule {
        let folder: String
        let forbidden: [String]
        var identifiers: [String] = []
        /// Names the rule lets through for now: known debts, listed so no new one slips in.
        var allowed: Set<String> = []
        let reason: String
    }

    /// One mention that breaks a rule.
    struct Violation: CustomStringConvertible {
        let file: String
        let line: Int
        let name: String
        let rule: Rule
        var description: String { "\(file):\(line): uses \(name) — \(rule.reason)" }
    }

    /// The rules of the store seam (issue #15): stores and the object graph meet only in
    /// StoreInterface, through the coordinator.
    static let rules: [Rule] = [
        Rule(folder: "Stores", forbidden: ["ObjectGraph"],
             reason: "stores see row snapshots and object IDs (StoreInterface), never the object graph"),
        Rule(folder: "Model", forbidden: ["Stores", "Coordinator"],
             reason: "the model describes entities; it knows no store and no coordinator"),
        Rule(folder: "ObjectGraph", forbidden: ["Stores"], identifiers: ["PersistentStoreBackend", "backend"],
             reason: "the object graph reaches a store only through the coordinator"),
        Rule(folder: "StoreInterface", forbidden: ["Stores", "ObjectGraph"],
             reason: "the seam is the contract; it names no particular store and nothing of the object graph"),
        // Nothing of SQLite's driver either: bound values are `SQLValue`s, statements are run and
        // their rows decoded by the store (`import GRDB` is caught by the module's name).
        Rule(folder: "Stores/SQL", forbidden: ["Stores/SQLite", "Stores/InMemory"],
             identifiers: ["GRDB", "GRDBSQLite", "Database", "DatabaseValue", "DatabaseValueConvertible", "Statement",
                           "StatementArguments", "Row", "RowCursor", "SQLiteStatement", "sqlite3"],
             reason: "the SQL layer is dialect-independent: SQLite specifics come through the SQLDialect parameter"),
        Rule(folder: "Predicate", forbidden: ["Stores"],
             reason: "predicates are evaluated and lowered without knowing a store"),
    ]

    /// The library's source root, found from this file's path.
    static var sourceRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/OpenCoreData")
    }

    let root: URL

    /// Every Swift file under `folder` (relative to the root), with its text.
    func files(in folder: String) -> [(path: String, text: String)] {
        let base = root.appendingPathComponent(folder)
        guard let enumerator = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { return [] }
        var result: [(String, String)] = []
        for case let url as URL in enumerator where url.pathExtension == "swift" {
            guard let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
            result.append((folder + url.path.dropFirst(base.path.count), text))
        }
        return result.sorted { $0.0 < $1.0 }
    }

    /// The type names declared under a folder: top-level ones, or nested ones too.
    func declaredTypes(in folder: String, nested: Bool = false) -> Set<String> {
        let pattern = #/^(?:(?:public|package|open|internal|private|fileprivate|final|indirect|nonisolated)\s+)*(?:class|struct|enum|protocol|actor|typealias)\s+([A-Za-z_][A-Za-z0-9_]*)/#
        var names = Set<String>()
        for (_, text) in files(in: folder) {
            for line in Self.code(text).split(separator: "\n", omittingEmptySubsequences: false) {
                let declaration = nested ? line.drop { $0 == " " } : line
                if let match = declaration.prefixMatch(of: pattern) { names.insert(String(match.1)) }
            }
        }
        return names
    }

    /// Every mention that breaks a rule.
    func violations(_ rules: [Rule] = LayerCheck.rules) -> [Violation] {
        var result: [Violation] = []
        for rule in rules {
            var names = Set(rule.identifiers)
            for folder in rule.forbidden { names.formUnion(declaredTypes(in: folder)) }
            // A name the folder declares itself (such as a nested type of the same name) is its own.
            names.subtract(declaredTypes(in: rule.folder, nested: true))
            names.subtract(rule.allowed)
            guard !names.isEmpty else { continue }
            for (path, text) in files(in: rule.folder) {
                for (number, line) in Self.code(text).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    for word in Self.words(line) where names.contains(word) {
                        result.append(Violation(file: path, line: number + 1, name: word, rule: rule))
                    }
                }
            }
        }
        return result
    }

    /// The identifiers of a line of code.
    static func words(_ line: Substring) -> [String] {
        var words: [String] = []
        var current = ""
        for character in line {
            if character.isLetter || character.isNumber || character == "_" {
                current.append(character)
            } else if !current.isEmpty {
                words.append(current)
                current = ""
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// The text with comments and string literals blanked out (line breaks kept, so line
    /// numbers stay right). Good enough for the library's own code: no nested block comments,
    /// and interpolations inside strings are dropped with the string.
    static func code(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        var iterator = Array(text).makeIterator()
        var pending: Character?
        enum Mode { case code, line, block, string, multiline }
        var mode = Mode.code
        var quotes = 0
        func next() -> Character? {
            if let character = pending { pending = nil; return character }
            return iterator.next()
        }
        while let character = next() {
            switch mode {
            case .code:
                if character == "/" {
                    let following = next()
                    if following == "/" { mode = .line; continue }
                    if following == "*" { mode = .block; continue }
                    output.append(character)
                    pending = following
                } else if character == "\"" {
                    let second = next()
                    if second == "\"" {
                        let third = next()
                        if third == "\"" { mode = .multiline; quotes = 0; continue }
                        pending = third // an empty string literal
                    } else {
                        mode = .string
                        pending = second
                    }
                } else {
                    output.append(character)
                }
            case .line:
                if character == "\n" { output.append("\n"); mode = .code }
            case .block:
                if character == "\n" { output.append("\n") }
                if character == "*" {
                    let following = next()
                    if following == "/" { mode = .code } else { pending = following }
                }
            case .string:
                if character == "\\" { _ = next() } else if character == "\"" || character == "\n" {
                    if character == "\n" { output.append("\n") }
                    mode = .code
                }
            case .multiline:
                if character == "\n" { output.append("\n") }
                quotes = character == "\"" ? quotes + 1 : 0
                if quotes == 3 { mode = .code }
            }
        }
        return output
    }
}
