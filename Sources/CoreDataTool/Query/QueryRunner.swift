import Foundation
import OpenCoreData

/// Output formats of `query`.
public enum QueryFormat: String, CaseIterable, Sendable {
    case table, json, csv
}

/// A `query`: an entity, a predicate, sort keys and paging, run through a fetch request.
public struct QueryRequest: Sendable {
    public var entity: String
    public var predicate: String?
    /// `key`, `key:asc` or `key:desc`.
    public var sort: [String] = []
    public var limit: Int?
    public var offset: Int?
    public var includesSubentities = true
    /// List to-many destinations instead of counting them.
    public var expand = false
    /// Print references as URIs in tables and CSV (JSON always uses URIs).
    public var uris = false
    /// Cut table cells wider than this (nil: never).
    public var maximumCellWidth: Int? = 48
    /// Show binary and transformable values as `<n bytes>` (tables) rather than base64 (CSV).
    public var summarizesData = false

    public init(entity: String) {
        self.entity = entity
    }
}

/// Runs queries and prints their rows: every stored attribute, to-one relationships as the
/// destination's primary key (or URI), to-many relationships as counts (or, expanded, lists).
enum QueryRunner {
    /// A column of the output.
    enum Column {
        case attribute(NSAttributeDescription)
        case relationship(NSRelationshipDescription)

        var name: String {
            switch self {
            case .attribute(let attribute): attribute.name
            case .relationship(let relationship): relationship.name
            }
        }
    }

    /// Parses a `--where` predicate, turning a syntax error into a message with a caret under the position.
    static func parsePredicate(_ format: String) throws -> NSPredicate {
        do {
            return try NSPredicate.parse(format: format)
        } catch {
            throw ToolError("invalid predicate: \(error.message) (at offset \(error.offset))", details: caretLines(format: format, offset: error.offset))
        }
    }

    /// The format string with a `^` under the character at `offset`.
    static func caretLines(format: String, offset: Int) -> [String] {
        let characters = Array(format)
        let clamped = max(0, min(offset, characters.count))
        // Only the line holding the offset, so multi-line predicates still point right.
        var lineStart = clamped
        while lineStart > 0, !characters[lineStart - 1].isNewline { lineStart -= 1 }
        var lineEnd = clamped
        while lineEnd < characters.count, !characters[lineEnd].isNewline { lineEnd += 1 }
        let line = String(characters[lineStart..<lineEnd]).replacingOccurrences(of: "\t", with: " ")
        return ["  " + line, "  " + String(repeating: " ", count: clamped - lineStart) + "^"]
    }

    /// Parses `key`, `key:asc`, `key:desc`.
    static func sortDescriptor(_ spec: String) throws -> NSSortDescriptor {
        var key = spec
        var ascending = true
        if let colon = spec.lastIndex(of: ":") {
            let direction = spec[spec.index(after: colon)...].lowercased()
            switch direction {
            case "asc", "ascending": ascending = true
            case "desc", "descending": ascending = false
            default: throw ToolError("invalid --sort \(spec): the direction after ':' must be asc or desc")
            }
            key = String(spec[..<colon])
        }
        guard !key.isEmpty, !key.contains(where: \.isWhitespace) else { throw ToolError("invalid --sort \(spec): expected key[:asc|desc]") }
        return NSSortDescriptor(key: key, ascending: ascending)
    }

    /// The columns for an entity: its stored properties, then those its subentities add.
    static func columns(for entity: NSEntityDescription, includesSubentities: Bool) -> [Column] {
        var seen = Set<String>()
        var columns: [Column] = []
        func add(_ entity: NSEntityDescription) {
            for property in entity.properties where !seen.contains(property.name) {
                if let attribute = property as? NSAttributeDescription, ValueCoding.isCarried(attribute) {
                    columns.append(.attribute(attribute))
                } else if let relationship = property as? NSRelationshipDescription, !relationship.isTransient {
                    columns.append(.relationship(relationship))
                } else {
                    continue
                }
                seen.insert(property.name)
            }
            if includesSubentities {
                for child in entity.subentities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) { add(child) }
            }
        }
        add(entity)
        return columns
    }

    /// Runs the query on an open session and writes the rows.
    static func run(_ request: QueryRequest, format: QueryFormat, session: StoreSession, output: any TextSink) throws {
        guard let entity = session.model.entitiesByName[request.entity] else {
            let names = session.model.entitiesByName.keys.sorted().joined(separator: ", ")
            throw ToolError("no entity named \(request.entity) in the model (entities: \(names))")
        }
        let predicate = try request.predicate.map(parsePredicate)
        let descriptors = try request.sort.map(sortDescriptor)
        if let limit = request.limit, limit < 0 { throw ToolError("--limit must be 0 or more") }
        if let offset = request.offset, offset < 0 { throw ToolError("--offset must be 0 or more") }

        let fetch = NSFetchRequest<NSManagedObject>(entityName: request.entity)
        fetch.predicate = predicate
        fetch.sortDescriptors = descriptors.isEmpty ? nil : descriptors
        fetch.fetchLimit = request.limit ?? 0
        fetch.fetchOffset = request.offset ?? 0
        fetch.includesSubentities = request.includesSubentities
        fetch.fetchBatchSize = 500

        let columns = columns(for: entity, includesSubentities: request.includesSubentities)
        let showEntity = request.includesSubentities && !entity.subentities.isEmpty
        let context = session.context
        try context.performAndWait {
            let objects: [NSManagedObject]
            do {
                objects = try context.fetch(fetch)
            } catch {
                throw ToolError("the query failed: \(ToolError.describe(error))")
            }
            switch format {
            case .json:
                let writer = JSONWriter(sink: output)
                try writer.beginArray()
                for object in objects {
                    let row = jsonRow(object, columns: columns, expand: request.expand)
                    try session.throwReadFailure()
                    try writer.value(row)
                }
                try writer.endArray()
                try writer.finish()
            case .csv:
                try output.write(CSV.line(headers(columns, showEntity: showEntity, uris: request.uris)))
                for object in objects {
                    let row = textRow(object, columns: columns, showEntity: showEntity, request: request)
                    try session.throwReadFailure()
                    try output.write(CSV.line(row))
                }
            case .table:
                var request = request
                request.summarizesData = true
                var table = TextTable(headers: headers(columns, showEntity: showEntity, uris: request.uris), maximumCellWidth: request.maximumCellWidth)
                for object in objects {
                    table.append(textRow(object, columns: columns, showEntity: showEntity, request: request))
                    try session.throwReadFailure()
                }
                try output.write(table.render())
                try output.write("(\(objects.count) \(objects.count == 1 ? "row" : "rows"))\n")
            }
        }
        try output.flush()
    }

    /// The size of a binary or transformable value, or nil for other attributes.
    private static func byteCount(_ value: Any?, attribute: NSAttributeDescription) -> Int? {
        guard let value, attribute.attributeType == .binaryDataAttributeType || attribute.attributeType == .transformableAttributeType else { return nil }
        return ValueCoding.transformableBytes(value, attribute: attribute)?.count
    }

    private static func headers(_ columns: [Column], showEntity: Bool, uris: Bool) -> [String] {
        [uris ? "uri" : "pk"] + (showEntity ? ["entity"] : []) + columns.map(\.name)
    }

    /// Whether the object's entity has the column's property (subentity columns are blank elsewhere).
    private static func has(_ object: NSManagedObject, _ column: Column) -> Bool {
        object.entity.propertiesByName[column.name] != nil
    }

    static func primaryKey(_ id: NSManagedObjectID) -> String {
        String(id.primaryKey)
    }

    private static func textRow(_ object: NSManagedObject, columns: [Column], showEntity: Bool, request: QueryRequest) -> [String?] {
        func reference(_ id: NSManagedObjectID) -> String {
            request.uris ? URIText.of(id) : primaryKey(id)
        }
        var row: [String?] = [reference(object.objectID)]
        if showEntity { row.append(object.entity.name) }
        for column in columns {
            guard has(object, column) else { row.append(nil); continue }
            switch column {
            case .attribute(let attribute):
                let value = object.value(forKey: attribute.name)
                if request.summarizesData, let bytes = byteCount(value, attribute: attribute) {
                    row.append("<\(bytes) bytes>")
                } else {
                    row.append(ValueCoding.text(value, attribute: attribute))
                }
            case .relationship(let relationship):
                let ids = object.objectIDs(forRelationshipNamed: relationship.name)
                if !relationship.isToMany {
                    row.append(ids.first.map(reference))
                } else if request.expand {
                    row.append(ids.map(reference).joined(separator: " "))
                } else {
                    row.append(String(ids.count))
                }
            }
        }
        return row
    }

    static func jsonRow(_ object: NSManagedObject, columns: [Column], expand: Bool) -> JSONValue {
        var row = JSONObject()
        row["_uri"] = .string(URIText.of(object.objectID))
        row["_entity"] = .string(object.entity.name ?? "")
        for column in columns where has(object, column) {
            switch column {
            case .attribute(let attribute):
                row[attribute.name] = ValueCoding.json(object.value(forKey: attribute.name), attribute: attribute)
            case .relationship(let relationship):
                let ids = object.objectIDs(forRelationshipNamed: relationship.name)
                if !relationship.isToMany {
                    row[relationship.name] = ids.first.map { .string(URIText.of($0)) } ?? .null
                } else if expand {
                    row[relationship.name] = .array(ids.map { .string(URIText.of($0)) })
                } else {
                    row[relationship.name] = .integer(ids.count)
                }
            }
        }
        return .object(row)
    }
}
