import Foundation
import OpenCoreData

/// What an import did.
public struct ImportSummary: Sendable, Equatable {
    /// Records that became new objects.
    public var inserted = 0
    /// Records that matched an object and changed it.
    public var updated = 0
    /// Records that matched an object already equal to them.
    public var unchanged = 0
    public var total: Int { inserted + updated + unchanged }
}

/// Imports an export file into a store: all or nothing, and idempotent.
///
/// **Matching rule** (so re-importing a file never duplicates): a record is the same object as
/// 1. the object its URI names, when the URI is this store's own (same store UUID) and that
///    object exists — an export imported back into its store;
/// 2. else the object an earlier import created or matched for the same URI: imports record
///    `source URI → primary key` in the store's metadata under `OCDImportMap`;
/// 3. else an object of the entity (or its constraint's entity hierarchy) with equal values for
///    one of the entity's uniqueness constraints (attribute-only constraints, all values given);
/// 4. else it is inserted.
///
/// A matched object takes the record's values: attributes it lists and relationships it lists
/// (to-many lists replace the current ones); what the record leaves out stays. Everything is
/// checked first (JSON, entities, keys, value types, references, validation rules); a bad file
/// changes nothing and the error names the record. The changes are saved with one `save()`.
enum Importer {
    /// One record of the file, checked and decoded.
    private struct Record {
        var key: String
        var ordinal: Int
        var entity: NSEntityDescription
        var attributes: [(attribute: NSAttributeDescription, value: Any?, json: JSONValue)]
        var relationships: [(relationship: NSRelationshipDescription, targets: [String])]

        var label: String { "record \(ordinal) (\"\(key)\")" }
    }

    /// Imports a file's records; with `dryRun`, checks everything and counts, then rolls back.
    static func run(session: StoreSession, data: Data, fileName: String, dryRun: Bool = false,
                    progress: ((_ total: Int) -> ProgressReporter)? = nil) throws -> ImportSummary {
        let document: JSONValue
        do {
            document = try JSONParser.parse(data)
        } catch let error as JSONSyntaxError {
            throw ToolError("\(fileName) is not valid JSON: \(error)")
        }
        let records = try parseRecords(document, fileName: fileName, model: session.model)
        // Three passes over the records: match or create, link, validate.
        let reporter = progress?(records.count * 3)
        let context = session.context
        let storeID = session.store.identifier ?? ""
        let summary = try context.performAndWait { () throws -> ImportSummary in
            try apply(records, session: session, context: context, storeID: storeID, dryRun: dryRun, reporter: reporter)
        }
        reporter?.finish()
        return summary
    }

    // MARK: - Reading the file

    private static func parseRecords(_ document: JSONValue, fileName: String, model: NSManagedObjectModel) throws -> [Record] {
        guard let root = document.objectValue else {
            throw ToolError("\(fileName): expected a JSON object with \"objects\" at the top, found \(document.kindDescription)")
        }
        if let format = root["format"], format != .string(ExportFormat.name) {
            throw ToolError("\(fileName): \"format\" is \(format.kindDescription), expected \"\(ExportFormat.name)\"")
        }
        if let version = root["version"], version != .integer(ExportFormat.version) {
            throw ToolError("\(fileName): export format version \(JSONWriter.render(version)) is not supported (this tool reads version \(ExportFormat.version))")
        }
        guard let objects = root["objects"]?.objectValue else {
            throw ToolError("\(fileName): expected \"objects\": an object mapping each object's URI to its record")
        }
        var records: [Record] = []
        records.reserveCapacity(objects.count)
        for (offset, member) in objects.members.enumerated() {
            records.append(try parseRecord(key: member.key, value: member.value, ordinal: offset + 1, model: model, fileName: fileName))
        }
        return records
    }

    private static func parseRecord(key: String, value: JSONValue, ordinal: Int, model: NSManagedObjectModel, fileName: String) throws -> Record {
        let label = "\(fileName): record \(ordinal) (\"\(key)\")"
        guard let object = value.objectValue else { throw ToolError("\(label): expected an object, found \(value.kindDescription)") }
        let uriEntity = URIParts(key)?.entity
        let entityName: String
        switch object["entity"] {
        case .string(let name)?: entityName = name
        case nil:
            guard let uriEntity else { throw ToolError("\(label): no \"entity\", and the key is not an x-coredata URI naming one") }
            entityName = uriEntity
        case let other?: throw ToolError("\(label): \"entity\" must be a string, found \(other.kindDescription)")
        }
        guard let entity = model.entitiesByName[entityName] else {
            throw ToolError("\(label): no entity named \(entityName) in the model")
        }
        if entity.isAbstract { throw ToolError("\(label): \(entityName) is abstract; its objects must have one of its subentities") }
        for key in object.keys where !["entity", "attributes", "relationships"].contains(key) {
            throw ToolError("\(label): unknown member \"\(key)\" (a record has \"entity\", \"attributes\" and \"relationships\")")
        }

        var attributes: [(NSAttributeDescription, Any?, JSONValue)] = []
        if let member = object["attributes"] {
            guard let values = member.objectValue else { throw ToolError("\(label): \"attributes\" must be an object, found \(member.kindDescription)") }
            for (name, json) in values.members {
                guard let attribute = entity.attributesByName[name] else {
                    throw ToolError("\(label): \(entityName) has no attribute named \(name)")
                }
                if attribute is NSDerivedAttributeDescription { continue } // computed by the store
                guard ValueCoding.isImportable(attribute) else {
                    throw ToolError("\(label): \(entityName).\(name) is \(attribute.isTransient ? "transient" : ValueCoding.typeName(attribute.attributeType)) and cannot be imported")
                }
                do {
                    attributes.append((attribute, try ValueCoding.value(from: json, attribute: attribute), json))
                } catch {
                    throw ToolError("\(label): \(entityName).\(name) (\(ValueCoding.typeName(attribute.attributeType))): \(error.description)")
                }
            }
        }

        var relationships: [(NSRelationshipDescription, [String])] = []
        if let member = object["relationships"] {
            guard let values = member.objectValue else { throw ToolError("\(label): \"relationships\" must be an object, found \(member.kindDescription)") }
            for (name, json) in values.members {
                guard let relationship = entity.relationshipsByName[name] else {
                    throw ToolError("\(label): \(entityName) has no relationship named \(name)")
                }
                if relationship.isTransient { continue }
                var targets: [String] = []
                switch json {
                case .null: break
                case .string(let uri): targets = [uri]
                case .array(let elements):
                    for element in elements {
                        guard let uri = element.stringValue else {
                            throw ToolError("\(label): \(entityName).\(name): expected URI strings, found \(element.kindDescription)")
                        }
                        targets.append(uri)
                    }
                default:
                    throw ToolError("\(label): \(entityName).\(name): expected \(relationship.isToMany ? "an array of URIs" : "a URI or null"), found \(json.kindDescription)")
                }
                if !relationship.isToMany && targets.count > 1 {
                    throw ToolError("\(label): \(entityName).\(name) is to-one but lists \(targets.count) objects")
                }
                relationships.append((relationship, targets))
            }
        }
        return Record(key: key, ordinal: ordinal, entity: entity, attributes: attributes.map { ($0.0, $0.1, $0.2) },
                      relationships: relationships.map { ($0.0, $0.1) })
    }

    // MARK: - Applying

    private static func apply(_ records: [Record], session: StoreSession, context: NSManagedObjectContext,
                              storeID: String, dryRun: Bool, reporter: ProgressReporter?) throws -> ImportSummary {
        let coordinator = session.coordinator
        let oldMetadata = coordinator.metadata(for: session.store)
        var importMap = (oldMetadata[ExportFormat.importMapKey] as? [String: Any]) ?? [:]
        var constraintIndex = ConstraintIndex(context: context)
        var objectsByKey: [String: NSManagedObject] = [:]
        objectsByKey.reserveCapacity(records.count)
        var inserted = Set<ObjectIdentifier>()

        // 1. Find or create the object of every record.
        for record in records {
            let label = record.label
            if objectsByKey[record.key] != nil { throw ToolError("\(label): the key appears twice in the file") }
            var object = try existingObject(for: record, storeID: storeID, importMap: importMap, context: context, coordinator: coordinator, session: session)
            if object == nil, let match = try constraintIndex.match(record.entity, values: record.attributes.map { ($0.attribute.name, $0.json) }) {
                if inserted.contains(ObjectIdentifier(match.object)), let other = objectsByKey.first(where: { $0.value === match.object })?.key {
                    throw ToolError("\(label): has the same \(match.names.joined(separator: ", ")) as the record \"\(other)\", which the uniqueness constraint of \(match.owner) forbids")
                }
                object = match.object
            }
            if let object {
                if let other = objectsByKey.first(where: { $0.value === object })?.key {
                    throw ToolError("\(label): matches the same object as \"\(other)\" (\(URIText.of(object.objectID)))")
                }
            } else {
                let created = NSManagedObject(entity: record.entity, insertInto: context)
                inserted.insert(ObjectIdentifier(created))
                object = created
            }
            objectsByKey[record.key] = object
            reporter?.advance(by: 1, detail: "matching")
            try constraintIndex.add(object!, entity: record.entity, values: record.attributes.map { ($0.attribute.name, $0.json) }, label: label)
        }

        // 2. Attributes, then relationships (every destination exists by now).
        var changed = Set<ObjectIdentifier>()
        for record in records {
            let object = objectsByKey[record.key]!
            for (attribute, value, _) in record.attributes {
                let current = ValueCoding.json(object.value(forKey: attribute.name), attribute: attribute)
                if current != ValueCoding.json(ValueCoding.asStored(value, attribute: attribute), attribute: attribute) {
                    object.setValue(value, forKey: attribute.name)
                    changed.insert(ObjectIdentifier(object))
                }
            }
        }
        for record in records {
            let object = objectsByKey[record.key]!
            for (relationship, targets) in record.relationships {
                var destinations: [NSManagedObject] = []
                for uri in targets {
                    guard let destination = try resolve(uri, objectsByKey: objectsByKey, storeID: storeID, importMap: importMap,
                                                        context: context, coordinator: coordinator, session: session) else {
                        throw ToolError("\(record.label): \(record.entity.name ?? "?").\(relationship.name) refers to \(uri), which is neither in the file nor in the store")
                    }
                    if let destinationEntity = relationship.destinationEntity, !destination.entity.isKindOf(entity: destinationEntity) {
                        throw ToolError("\(record.label): \(record.entity.name ?? "?").\(relationship.name) must refer to \(destinationEntity.name ?? "?") objects, but \(uri) is a \(destination.entity.name ?? "?")")
                    }
                    destinations.append(destination)
                }
                if try setRelationship(relationship, of: object, to: destinations) { changed.insert(ObjectIdentifier(object)) }
            }
            reporter?.advance(by: 1, detail: "linking")
        }

        // 3. Validation, reported per record before anything is written.
        let keysByObject = Dictionary(objectsByKey.map { (ObjectIdentifier($0.value), $0.key) }, uniquingKeysWith: { first, _ in first })
        var problems: [String] = []
        for record in records {
            let object = objectsByKey[record.key]!
            let id = ObjectIdentifier(object)
            reporter?.advance(by: 1, detail: "validating")
            guard inserted.contains(id) || changed.contains(id) || object.hasChanges else { continue }
            do {
                if inserted.contains(id) { try object.validateForInsert() } else { try object.validateForUpdate() }
            } catch {
                for violation in Violation.list(from: error, object: object) {
                    problems.append("\(record.label): \(violation.message)")
                }
            }
        }
        // Objects the import did not list but changed through inverses must stay valid too.
        for object in context.updatedObjects where keysByObject[ObjectIdentifier(object)] == nil {
            do { try object.validateForUpdate() } catch {
                for violation in Violation.list(from: error, object: object) {
                    problems.append("existing object \(URIText.of(object.objectID)): \(violation.message)")
                }
            }
        }
        if !problems.isEmpty {
            context.rollback()
            let shown = problems.prefix(20)
            throw ToolError("the file breaks the model's rules; nothing was imported",
                            details: shown.map { "  " + $0 } + (problems.count > shown.count ? ["  … and \(problems.count - shown.count) more"] : []))
        }

        var summary = ImportSummary()
        for record in records {
            let id = ObjectIdentifier(objectsByKey[record.key]!)
            if inserted.contains(id) { summary.inserted += 1 } else if changed.contains(id) { summary.updated += 1 } else { summary.unchanged += 1 }
        }
        if dryRun {
            context.rollback()
            return summary
        }
        guard context.hasChanges || records.contains(where: { needsMapping($0, storeID: storeID, importMap: importMap, objectsByKey: objectsByKey) }) else {
            return summary
        }

        // 4. Keys, the mapping, then one save.
        let newObjects = context.insertedObjects.filter { inserted.contains(ObjectIdentifier($0)) }
        do {
            try context.obtainPermanentIDs(for: Array(newObjects))
        } catch {
            context.rollback()
            throw ToolError("cannot allocate primary keys: \(ToolError.describe(error)); nothing was imported")
        }
        for record in records where URIParts(record.key)?.store != storeID {
            importMap[record.key] = NSNumber(value: objectsByKey[record.key]!.objectID.primaryKey)
        }
        var metadata = oldMetadata
        metadata[ExportFormat.importMapKey] = importMap
        coordinator.setMetadata(metadata, for: session.store)
        reporter?.advance(by: 0, detail: "saving")
        do {
            try context.save()
        } catch {
            coordinator.setMetadata(oldMetadata, for: session.store)
            context.rollback()
            throw saveError(error, keysByObject: keysByObject)
        }
        return summary
    }

    private static func needsMapping(_ record: Record, storeID: String, importMap: [String: Any], objectsByKey: [String: NSManagedObject]) -> Bool {
        guard URIParts(record.key)?.store != storeID else { return false }
        return (importMap[record.key] as? NSNumber)?.int64Value != objectsByKey[record.key]?.objectID.primaryKey
    }

    /// The object a record's URI already stands for in this store (rules 1 and 2), or nil.
    private static func existingObject(for record: Record, storeID: String, importMap: [String: Any], context: NSManagedObjectContext,
                                       coordinator: NSPersistentStoreCoordinator, session: StoreSession) throws -> NSManagedObject? {
        if let parts = URIParts(record.key), parts.store == storeID {
            if let object = fetchExisting(entity: record.entity, primaryKey: parts.primaryKey, context: context, session: session) { return object }
        }
        if let key = (importMap[record.key] as? NSNumber)?.int64Value {
            return fetchExisting(entity: record.entity, primaryKey: key, context: context, session: session)
        }
        return nil
    }

    /// The object a reference names: a record of the file, else an object of this store (by its own URI or the mapping).
    private static func resolve(_ uri: String, objectsByKey: [String: NSManagedObject], storeID: String, importMap: [String: Any],
                                context: NSManagedObjectContext, coordinator: NSPersistentStoreCoordinator, session: StoreSession) throws -> NSManagedObject? {
        if let object = objectsByKey[uri] { return object }
        guard let parts = URIParts(uri), let entity = session.model.entitiesByName[parts.entity] else { return nil }
        if parts.store == storeID, let object = fetchExisting(entity: entity, primaryKey: parts.primaryKey, context: context, session: session) {
            return object
        }
        if let key = (importMap[uri] as? NSNumber)?.int64Value {
            return fetchExisting(entity: entity, primaryKey: key, context: context, session: session)
        }
        return nil
    }

    private static func fetchExisting(entity: NSEntityDescription, primaryKey: Int64, context: NSManagedObjectContext, session: StoreSession) -> NSManagedObject? {
        guard primaryKey > 0 else { return nil }
        let id = NSManagedObjectID(entity: entity, primaryKey: primaryKey, store: session.store)
        guard let object = try? context.existingObject(with: id), object.entity === entity else { return nil }
        return object
    }

    /// Sets a relationship when it differs; returns whether it changed.
    private static func setRelationship(_ relationship: NSRelationshipDescription, of object: NSManagedObject, to destinations: [NSManagedObject]) throws -> Bool {
        let name = relationship.name
        if !relationship.isToMany {
            let current = object.value(forKey: name) as? NSManagedObject
            guard current !== destinations.first else { return false }
            object.setValue(destinations.first, forKey: name)
            return true
        }
        let current = object.value(forKey: name)
        if relationship.isOrdered {
            let currentObjects = (current as? NSOrderedSet)?.array.compactMap { $0 as? NSManagedObject } ?? []
            guard currentObjects.map(ObjectIdentifier.init) != destinations.map(ObjectIdentifier.init) else { return false }
            object.setValue(NSOrderedSet(array: destinations), forKey: name)
        } else {
            let currentObjects = (current as? NSSet)?.allObjects.compactMap { $0 as? NSManagedObject } ?? []
            guard Set(currentObjects.map(ObjectIdentifier.init)) != Set(destinations.map(ObjectIdentifier.init)) else { return false }
            object.setValue(NSSet(array: destinations), forKey: name)
        }
        return true
    }

    /// A save error, with the records it concerns named.
    private static func saveError(_ error: any Error, keysByObject: [ObjectIdentifier: String]) -> ToolError {
        let nsError = error as NSError
        var details: [String] = []
        if nsError.code == NSManagedObjectConstraintMergeError,
           let conflicts = nsError.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [Any] {
            for conflict in conflicts.prefix(20) {
                if let constraint = conflict as? NSConstraintConflict {
                    let keys = constraint.conflictingObjects.map { keysByObject[ObjectIdentifier($0)].map { "\"\($0)\"" } ?? URIText.of($0.objectID) }
                    details.append("  uniqueness constraint (\(constraint.constraint.joined(separator: ", "))): \(keys.joined(separator: " and "))")
                }
            }
        }
        return ToolError("the import could not be saved; nothing was imported: \(ToolError.describe(error))", details: details)
    }
}

/// The parts of an `x-coredata://<store UUID>/<Entity>/p<key>` URI.
struct URIParts {
    var store: String
    var entity: String
    var primaryKey: Int64

    init?(_ text: String) {
        guard let url = URL(string: text), url.scheme == "x-coredata", let host = url.host, !host.isEmpty else { return nil }
        let parts = url.path.split(separator: "/").map(String.init)
        guard parts.count == 2, parts[1].hasPrefix("p"), let key = Int64(parts[1].dropFirst()) else { return nil }
        store = host
        entity = parts[0]
        primaryKey = key
    }
}
