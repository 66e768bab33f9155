import Foundation
import GRDB

// MARK: - Running a dictionary query on SQLite

extension SQLDictionaryQuery {
    /// The dictionaries of the result rows of the query's statement, run on SQLite: the values
    /// are decoded here, the rows finished (de-duplicated) by the SQL layer's `results(_:)`.
    /// Attributes with `allowsExternalBinaryDataStorage` are read through `externalData`.
    package func rows(_ statement: Statement, arguments: StatementArguments, store: NSPersistentStore, schema: SQLStoreSchema,
                      externalData: SQLiteExternalData? = nil, db: Database) throws -> [NSDictionary] {
        var rows: [[String: Any]] = []
        // Decided once per query, not per row: which columns may hold external references.
        let external: [Bool] = columns.map { column in
            guard externalData != nil, case .attribute(let attribute) = column.output else { return false }
            return SQLiteExternalData.isExternal(attribute)
        }
        let cursor = try Row.fetchCursor(statement, arguments: arguments)
        let handle = statement.sqliteStatement
        while let row = try cursor.next() {
            var values: [String: Any] = [:]
            var index = 0
            for (number, column) in columns.enumerated() {
                let value: DatabaseValue = row[index]
                index += 1
                switch column.output {
                case .attribute(let attribute) where external[number]:
                    let stored = try externalData?.storeValue(value, type: attribute.attributeType, db: db) ?? .null
                    values[column.name] = AttributeConversion.publicValue(stored, type: attribute.attributeType)
                case .attribute(let attribute):
                    // Through the row decoder, which reads text with its byte count (NULs kept).
                    guard let stored = SQLiteRowDecoder.storeValue(handle, Int32(index - 1), attribute.attributeType) else {
                        throw SQLiteStoreErrors.unreadableRow("the value of '\(column.name)' (attribute '\(attribute.name)') does not decode as \(attribute.attributeType.xmlName): \(value)",
                                                              url: store.url)
                    }
                    values[column.name] = AttributeConversion.publicValue(stored, type: attribute.attributeType)
                case .objectID(let destination):
                    let number: DatabaseValue = row[index]
                    index += 1
                    guard let key = SQLiteValueCoding.integer(value) else { continue }
                    let entity = SQLiteValueCoding.integer(number).flatMap { schema.entity(number: Int($0)) } ?? destination
                    values[column.name] = NSManagedObjectID(entity: entity, primaryKey: key, store: store)
                case .count:
                    values[column.name] = NSNumber(value: Int(SQLiteValueCoding.integer(value) ?? 0))
                case .sum(isInteger: true):
                    values[column.name] = NSNumber(value: SQLiteValueCoding.integer(value) ?? 0)
                case .sum(isInteger: false), .average:
                    if let double = Double.fromDatabaseValue(value) { values[column.name] = NSNumber(value: double) }
                }
            }
            rows.append(values)
        }
        return results(rows)
    }
}
