import Foundation

/// Aligned plain-text tables for terminals.
struct TextTable {
    var headers: [String]
    var rows: [[String?]] = []
    /// The widest a cell prints before it is cut with `…` (nil: never cut).
    var maximumCellWidth: Int? = nil

    init(headers: [String], maximumCellWidth: Int? = nil) {
        self.headers = headers
        self.maximumCellWidth = maximumCellWidth
    }

    mutating func append(_ row: [String?]) { rows.append(row) }

    /// The table: a header line, a rule, then one line per row, with trailing spaces trimmed.
    func render() -> String {
        let cells = rows.map { row in headers.indices.map { index in cell(index < row.count ? row[index] : nil) } }
        var widths = headers.map(\.count)
        for row in cells {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        func line(_ values: [String]) -> String {
            var text = ""
            for (index, value) in values.enumerated() {
                if index > 0 { text += "  " }
                text += value
                if index < values.count - 1 { text += String(repeating: " ", count: widths[index] - value.count) }
            }
            while text.hasSuffix(" ") { text.removeLast() }
            return text
        }
        var lines = [line(headers), line(widths.map { String(repeating: "-", count: $0) })]
        lines += cells.map(line)
        return lines.joined(separator: "\n") + "\n"
    }

    private func cell(_ value: String?) -> String {
        guard var text = value else { return "" }
        if text.contains(where: { $0.isNewline || $0 == "\t" }) {
            text = text.replacingOccurrences(of: "\r\n", with: "\\n").replacingOccurrences(of: "\n", with: "\\n")
                .replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\t", with: "\\t")
        }
        if let maximumCellWidth, text.count > maximumCellWidth {
            text = String(text.prefix(max(1, maximumCellWidth - 1))) + "…"
        }
        return text
    }
}

/// RFC 4180 CSV: fields with commas, quotes or line breaks are quoted, quotes doubled; nil is empty.
enum CSV {
    static func line(_ fields: [String?]) -> String {
        fields.map { field in
            guard let field else { return "" }
            if field.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) {
                return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            }
            return field
        }.joined(separator: ",") + "\n"
    }
}
