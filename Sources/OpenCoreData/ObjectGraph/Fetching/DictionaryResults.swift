import Foundation

/// Builds dictionary results (`.dictionaryResultType`) from matched objects in memory:
/// `propertiesToFetch`, `returnsDistinctResults`, `propertiesToGroupBy` and aggregate
/// `NSExpressionDescription`s (`count:`, `sum:`, `min:`, `max:`, `average:`).
///
/// `"objectID"` (or an expression description of `SELF`) fetches each row's object ID, and a
/// `havingPredicate` reads the row's columns by key or as `$name` variables, as Apple's does.
enum DictionaryResults {
    static func make<T>(from objects: [NSManagedObject], request: NSFetchRequest<T>, entity: NSEntityDescription) throws -> [NSDictionary] {
        let columns = try (request.propertiesToFetch ?? entity.properties.filter { $0 is NSAttributeDescription && $0.isStored })
            .map { try Column($0, entity: entity) }
        let groupKeys = try (request.propertiesToGroupBy ?? []).map { try Column($0, entity: entity).keyPath }
        let hasAggregates = columns.contains { $0.aggregate != nil }

        var rows: [[String: Any]] = []
        if hasAggregates || !groupKeys.isEmpty {
            var groups: [[GroupKey]: [NSManagedObject]] = [:]
            var order: [[GroupKey]] = []
            for object in objects {
                let key = groupKeys.map { Self.groupingKey(object.value(forKeyPath: $0)) }
                if groups[key] == nil { order.append(key) }
                groups[key, default: []].append(object)
            }
            if objects.isEmpty && groupKeys.isEmpty { order = [[]]; groups[[]] = [] }
            for key in order {
                let members = groups[key] ?? []
                var row: [String: Any] = [:]
                for column in columns {
                    if let aggregate = column.aggregate {
                        row[column.name] = aggregate.evaluate(members)
                    } else if let first = members.first {
                        row[column.name] = column.value(of: first) ?? NSNull()
                    }
                }
                rows.append(row.filter { !($0.value is NSNull) })
            }
            if let having = request.havingPredicate {
                // `$count` names the `count` column as `count` does (Apple's havingPredicate
                // examples use the variable form for expression descriptions).
                rows = rows.filter { having.evaluate(with: $0 as NSDictionary, substitutionVariables: $0) }
            }
        } else {
            rows = objects.map { object in
                var row: [String: Any] = [:]
                for column in columns {
                    if let value = column.value(of: object) { row[column.name] = value }
                }
                return row
            }
        }
        if request.returnsDistinctResults {
            var seen = Set<String>()
            rows = rows.filter { row in
                seen.insert(row.keys.sorted().map { "\($0)=\(row[$0]!)" }.joined(separator: "\u{1}")).inserted
            }
        }
        return rows.map { NSDictionary(dictionary: $0) }
    }

    /// A value as a grouping key: by value (dates to the sub-second), never by its printed form.
    enum GroupKey: Hashable {
        case null
        case number(Double)
        case date(Double)
        case text(String)
        case data(Data)
        case object(ObjectKey)
        case other(String)
    }

    static func groupingKey(_ value: Any?) -> GroupKey {
        switch value {
        case nil, is NSNull: return .null
        case let object as NSManagedObject: return .object(object.objectID.key)
        case let id as NSManagedObjectID: return .object(id.key)
        case let date as Date: return .date(date.timeIntervalSinceReferenceDate)
        case let string as String: return .text(string)
        case let data as Data: return .data(data)
        case let number as NSNumber: return .number(number.doubleValue)
        case let some?:
            if let number = AttributeConversion.double(some) { return .number(number) }
            return .other("\(some)")
        }
    }

    /// One requested column.
    struct Column {
        let name: String
        let keyPath: String
        let aggregate: Aggregate?

        init(_ element: Any, entity: NSEntityDescription) throws {
            if let description = element as? NSExpressionDescription {
                name = description.name
                if let path = description.expression.flatMap(DictionaryColumns.plainKeyPath) {
                    guard path == "self" || DictionaryColumns.objectKeys.contains(path) || DictionaryColumns.isReadableKeyPath(path, of: entity) else {
                        throw CoreDataError.make(NSCoreDataError, "The expression of '\(description.name)' reads '\(path)', which entity '\(entity.name ?? "?")' does not have.")
                    }
                    keyPath = DictionaryColumns.objectKeys.contains(path) ? "self" : path
                    aggregate = nil
                    return
                }
                guard let expression = description.expression, let parsed = Aggregate(expression: expression) else {
                    throw CoreDataError.make(NSCoreDataError, "The expression of '\(description.name)' is not a supported aggregate (count:, sum:, min:, max:, average: over a key path), a key path or SELF.")
                }
                guard parsed.keyPath == "self" || DictionaryColumns.objectKeys.contains(parsed.keyPath)
                        || DictionaryColumns.isReadableKeyPath(parsed.keyPath, of: entity, allowsToMany: true) else {
                    throw CoreDataError.make(NSCoreDataError, "The expression of '\(description.name)' reads '\(parsed.keyPath)', which entity '\(entity.name ?? "?")' does not have.")
                }
                aggregate = parsed
                keyPath = parsed.keyPath
            } else if let property = element as? NSPropertyDescription {
                name = property.name
                keyPath = property.name
                aggregate = nil
            } else if let string = element as? String {
                guard DictionaryColumns.objectKeys.contains(string) || DictionaryColumns.isReadableKeyPath(string, of: entity) else {
                    throw CoreDataError.make(NSCoreDataError, "propertiesToFetch names '\(string)', which entity '\(entity.name ?? "?")' does not have.")
                }
                name = string
                keyPath = DictionaryColumns.objectKeys.contains(string) ? "self" : string
                aggregate = nil
            } else {
                throw CoreDataError.make(NSCoreDataError, "propertiesToFetch holds \(type(of: element)); use property names or descriptions.")
            }
        }

        func value(of object: NSManagedObject) -> Any? {
            if keyPath == "self" { return object.objectID }
            let value = object.value(forKeyPath: keyPath)
            if let related = value as? NSManagedObject { return related.objectID }
            return value
        }
    }

    /// An aggregate function over a key path.
    struct Aggregate {
        let function: String
        let keyPath: String

        init?(expression: NSExpression) {
            guard let parsed = AggregateExpression.parse(expression) else { return nil }
            function = parsed.function
            keyPath = parsed.keyPath
        }

        func evaluate(_ objects: [NSManagedObject]) -> Any? {
            let values = objects.compactMap { $0.value(forKeyPath: keyPath) }.filter { !($0 is NSNull) }
            switch function {
            case "count:": return NSNumber(value: values.count)
            case "sum:":
                if values.allSatisfy(isIntegral) {
                    return NSNumber(value: values.compactMap(AttributeConversion.integer).reduce(0, +))
                }
                return NSNumber(value: values.compactMap(AttributeConversion.double).reduce(0, +))
            case "average:":
                let numbers = values.compactMap(AttributeConversion.double)
                return numbers.isEmpty ? nil : NSNumber(value: numbers.reduce(0, +) / Double(numbers.count))
            case "min:": return values.min { ValueOrdering.less($0, $1) }
            case "max:": return values.max { ValueOrdering.less($0, $1) }
            default: return nil
            }
        }
    }
}

/// Whether a value is an integer: a Swift integer, or an `NSNumber` not holding a float or double.
/// (`NSNumber` bridges to `Double` on Linux whatever it holds, so `is Double` cannot tell.)
private func isIntegral(_ value: Any) -> Bool {
    if let number = value as? NSNumber, type(of: value as AnyObject) is NSNumber.Type {
        let kind = String(cString: number.objCType)
        return kind != "d" && kind != "f"
    }
    return value is any BinaryInteger
}

/// Orders values of the same kind: numbers, strings, dates.
enum ValueOrdering {
    static func less(_ lhs: Any, _ rhs: Any) -> Bool {
        if let l = AttributeConversion.double(lhs), let r = AttributeConversion.double(rhs) { return l < r }
        if let l = lhs as? String, let r = rhs as? String { return l < r }
        if let l = lhs as? Date, let r = rhs as? Date { return l < r }
        return "\(lhs)" < "\(rhs)"
    }
}
