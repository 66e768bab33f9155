import OpenCoreData

/// Tables, JSON and the two output streams.
enum Output {
    /// Writes a line to standard output.
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
    }

    /// Writes a line to standard error (messages that must not mix with exported JSON).
    static func writeError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// The JSON text of a value, as `--json` prints it.
    static func json<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try TodoArchive.makeEncoder().encode(value), as: UTF8.self)
    }

    /// The first 8 characters of an id, as lists show it.
    static func shortId(_ id: String) -> String {
        String(id.prefix(8)).lowercased()
    }

    /// Left-aligned columns under a header, two spaces apart.
    static func table(headers: [String], rows: [[String]], empty: String = "Nothing to show.") -> String {
        if rows.isEmpty { return empty }
        var widths = headers.map(\.count)
        for row in rows {
            for (column, cell) in row.enumerated() where column < widths.count {
                widths[column] = max(widths[column], cell.count)
            }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                column == cells.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
        return ([line(headers)] + rows.map(line)).joined(separator: "\n")
    }

    /// The table of a page of to-dos, with where the page sits.
    static func todoTable(_ page: TodoPage) -> String {
        if page.total == 0 { return "No to-dos." }
        let pages = max(1, (page.total + page.pageSize - 1) / page.pageSize)
        let table = table(headers: todoHeaders, rows: page.items.map(todoRow), empty: "No to-dos on this page.")
        return table + "\n" + "Page \(page.page) of \(pages) (\(page.total) to-do(s))"
    }

    /// The table a live list (`list --follow`) starts with: every matching to-do.
    static func followTable(_ items: [TodoItem]) -> String {
        if items.isEmpty { return "No to-dos." }
        return table(headers: todoHeaders, rows: items.map(todoRow)) + "\n" + "\(items.count) to-do(s)"
    }

    /// One line per change of a live list, e.g. `moved 3f2a1b2c [x] "Buy milk" from row 3 to row 1`.
    static func changeLine(_ change: TodoChange) -> String {
        let item = change.item
        var text = "\(change.kind.rawValue) \(shortId(item.id)) \(item.isDone ? "[x]" : "[ ]") \"\(item.title)\""
        switch change.kind {
        case .inserted: text += change.newRow.map { " at row \($0)" } ?? ""
        case .deleted: text += change.oldRow.map { " from row \($0)" } ?? ""
        case .moved: text += " from row \(change.oldRow ?? 0) to row \(change.newRow ?? 0)"
        case .updated: text += (change.newRow ?? change.oldRow).map { " at row \($0)" } ?? ""
        }
        return text
    }

    private static let todoHeaders = ["ID", "DONE", "TITLE", "TAGS", "LOCATION", "UPDATED"]

    private static func todoRow(_ item: TodoItem) -> [String] {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        formatter.locale = Locale(identifier: "en_US_POSIX")
        return [shortId(item.id), item.isDone ? "[x]" : "[ ]", item.title,
                item.tags.map(\.title).joined(separator: ","), item.location?.placeName ?? "", formatter.string(from: item.updatedAt)]
    }
}
