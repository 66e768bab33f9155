import OpenCoreData

/// The JSON that `todo export` writes and `todo import` reads: every tag, every location, and
/// every to-do naming its tags (`tagId`s) and location (`id`) by reference.
///
/// ```json
/// {"format": "opencoredata-todo", "version": 1,
///  "tags": [{"tagId": "…", "title": "home", "createdAt": "…", "updatedAt": "…"}],
///  "locations": [{"id": "…", "placeName": "Office", "latitude": 0, "longitude": 0, "altitude": 0}],
///  "todos": [{"todoId": "…", "title": "Buy milk", "createdAt": "…", "updatedAt": "…",
///             "completedAt": null, "tags": ["…"], "location": "…"}]}
/// ```
public struct TodoArchive: Sendable, Equatable, Codable {
    public struct Tag: Sendable, Equatable, Codable {
        public var tagId: String
        public var title: String
        public var createdAt: Date?
        public var updatedAt: Date?
    }

    public struct Location: Sendable, Equatable, Codable {
        public var id: String
        public var placeName: String
        public var latitude: Double?
        public var longitude: Double?
        public var altitude: Double?
    }

    public struct Todo: Sendable, Equatable, Codable {
        public var todoId: String
        public var title: String
        public var createdAt: Date?
        public var updatedAt: Date?
        public var completedAt: Date?
        /// `tagId`s of tags in this archive or already in the store.
        public var tags: [String]?
        /// `id` of a location in this archive or already in the store.
        public var location: String?
    }

    /// Always "opencoredata-todo".
    public var format: String
    public var version: Int
    public var tags: [Tag]
    public var locations: [Location]
    public var todos: [Todo]

    static let formatName = "opencoredata-todo"
}

// MARK: - JSON

extension TodoArchive {
    /// The encoder for archives and `--json` output: sorted keys, ISO 8601 dates with milliseconds.
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            var container = encoder.singleValueContainer()
            try container.encode(formatter.string(from: date))
        }
        return encoder
    }

    /// The decoder for archives: ISO 8601 dates with or without fractional seconds.
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            if let date = formatter.date(from: text) { return date }
            formatter.formatOptions = [.withInternetDateTime]
            if let date = formatter.date(from: text) { return date }
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not an ISO 8601 date")
        }
        return decoder
    }

    /// Decodes an archive; the error names the record and field at fault (`todos[2].title`).
    public static func decode(_ data: Data) throws -> TodoArchive {
        do {
            return try makeDecoder().decode(TodoArchive.self, from: data)
        } catch let error as DecodingError {
            throw TodoAppError(describe(error))
        } catch {
            throw TodoAppError("not valid JSON: \(error.localizedDescription)")
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            var text = ""
            for key in codingPath {
                if let index = key.intValue { text += "[\(index)]" } else { text += text.isEmpty ? key.stringValue : ".\(key.stringValue)" }
            }
            return text.isEmpty ? "the file" : text
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath)): the field '\(key.stringValue)' is missing"
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)): expected \(type)"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)): expected \(type), found null"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "not valid JSON" }
            return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "not a to-do archive"
        }
    }
}
