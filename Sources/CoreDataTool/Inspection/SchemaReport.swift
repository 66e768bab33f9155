import Foundation

/// What `coredata store schema` prints: the SQL of `sqlite_master`, grouped by kind.
enum SchemaReport {
    private static let groups: [(type: String, title: String)] = [
        ("table", "Tables"), ("index", "Indexes"), ("trigger", "Triggers"), ("view", "Views"),
    ]

    static func read(path: String) throws -> [StoreFile.SchemaObject] {
        let file = try StoreFile(path: path)
        defer { file.close() }
        return try file.schemaObjects()
    }

    static func text(_ objects: [StoreFile.SchemaObject], path: String) -> String {
        var text = "-- Schema of \(path)\n"
        for group in groups {
            let members = objects.filter { $0.type == group.type }.sorted { $0.name < $1.name }
            text += "\n-- \(group.title) (\(members.count))\n"
            for object in members {
                if let sql = object.sql {
                    text += sql + ";\n"
                } else {
                    text += "-- \(object.name): created by SQLite for a PRIMARY KEY or UNIQUE constraint of \(object.tableName)\n"
                }
            }
        }
        return text
    }

    static func json(_ objects: [StoreFile.SchemaObject], path: String) -> JSONValue {
        var root = JSONObject()
        root["path"] = .string(path)
        for group in groups {
            let members = objects.filter { $0.type == group.type }.sorted { $0.name < $1.name }
            root[group.title.lowercased()] = .array(members.map { object in
                .object(JSONObject([("name", .string(object.name)), ("table", .string(object.tableName)),
                                    ("sql", object.sql.map(JSONValue.string) ?? .null)]))
            })
        }
        return .object(root)
    }
}
