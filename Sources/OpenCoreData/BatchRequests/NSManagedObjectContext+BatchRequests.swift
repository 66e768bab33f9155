import Foundation

/// A request `execute(_:)` runs synchronously against the stores (the batch requests).
protocol BatchStoreRequest {
    func run(in context: NSManagedObjectContext) throws -> NSPersistentStoreResult
}

// MARK: - Running batch requests

extension NSManagedObjectContext {
    /// Runs a store-level batch request on the stores that hold its entity (those of
    /// `affectedStores` when set), and forgets the coordinator's cached rows it changed.
    ///
    /// Registered objects are left as they are, as on Apple platforms: merge the result's IDs
    /// (`mergeChanges(fromRemoteContextSave:into:)`) or refresh them to see the new values.
    func runBatch(_ request: StoreBatchRequest, entity: NSEntityDescription, affectedStores: [NSPersistentStore]?,
                  firstStoreOnly: Bool = false) throws -> [(store: NSPersistentStore, changes: StoreBatchChanges)] {
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "The context has no persistent store coordinator to run a batch request against.")
        }
        var stores = coordinator.stores(for: entity, affectedStores: affectedStores)
        guard !stores.isEmpty else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "No store of the coordinator holds the entity '\(entity.name ?? "?")'.")
        }
        if firstStoreOnly { stores = [stores[0]] }
        var results: [(store: NSPersistentStore, changes: StoreBatchChanges)] = []
        for store in stores {
            try coordinator.checkWritable(store)
            let result = try store.backend.executeBatch(request, origin: StoreChangeOrigin(author: transactionAuthor, contextName: name), store: store)
            coordinator.removeCachedRows(result.changes, store: store)
            results.append((store, result.changes))
        }
        return results
    }

    /// The entity a batch request names, from the coordinator's model.
    func batchEntity(_ given: NSEntityDescription?, named name: String, request: String) throws -> NSEntityDescription {
        if let given, given.name != nil { return given }
        guard let entity = persistentStoreCoordinator?.managedObjectModel.entitiesByName[name] else {
            throw CoreDataError.make(NSCoreDataError, "The \(request) names the entity '\(name)', which is not in the model.")
        }
        return entity
    }
}

// MARK: - NSBatchInsertRequest

extension NSBatchInsertRequest: BatchStoreRequest {
    func run(in context: NSManagedObjectContext) throws -> NSPersistentStoreResult {
        let entity = try context.batchEntity(entity, named: entityName, request: "batch insert request")
        if entity.isAbstract {
            throw CoreDataError.make(NSCoreDataError, "The batch insert request names the abstract entity '\(entity.name ?? "?")'; rows need a concrete entity.")
        }
        let rows = BatchInsertRows(entity: entity)
        let cursor = BatchInsertCursor()
        // Each closure fills the store's one row buffer in place: no row array per row.
        let nextRow: (inout StoreValues) throws -> Bool
        if let objects = objectsToInsert {
            nextRow = { values in
                let index = cursor.index
                guard index < objects.count else { return false }
                cursor.index += 1
                try rows.fill(&values, from: objects[index], index: index)
                return true
            }
        } else if let handler = dictionaryHandler {
            cursor.dictionary = rows.makeRowDictionary()
            nextRow = { values in
                // One dictionary serves every row unless the handler kept a reference to it.
                if isKnownUniquelyReferenced(&cursor.dictionary) {
                    cursor.dictionary.reset()
                } else {
                    cursor.dictionary = rows.makeRowDictionary()
                }
                let dictionary = cursor.dictionary
                if handler(dictionary) { return false }
                let index = cursor.index
                cursor.index += 1
                try rows.fill(&values, from: dictionary, index: index)
                return true
            }
        } else if let handler = managedObjectHandler {
            let type = ClassRegistry.shared.objectClass(for: entity)
            nextRow = { values in
                let object = type.init(entity: entity, insertInto: nil)
                if handler(object) { return false }
                let index = cursor.index
                cursor.index += 1
                try rows.fill(&values, from: object, index: index)
                return true
            }
        } else {
            nextRow = { _ in false }
        }
        let insert = StoreBatchInsert(entity: entity, needsKeys: resultType == .objectIDs, nextRow: nextRow)
        let results = try context.runBatch(.insert(insert), entity: entity, affectedStores: affectedStores, firstStoreOnly: true)
        switch resultType {
        case .statusOnly:
            return NSBatchInsertResult(result: NSNumber(value: true), resultType: resultType)
        case .objectIDs:
            let ids = results.flatMap { $0.changes.objectIDs(.insert, store: $0.store) + $0.changes.objectIDs(.update, store: $0.store, includingSideEffects: false) }
            return NSBatchInsertResult(result: ids, resultType: resultType)
        case .count:
            let count = results.reduce(0) { $0 + $1.changes.count(of: .insert) + $1.changes.count(of: .update, includingSideEffects: false) }
            return NSBatchInsertResult(result: NSNumber(value: count), resultType: resultType)
        }
    }
}

/// What a batch insert's row closure keeps from one row to the next: the row index and the
/// handler's dictionary.
///
/// A class with unchecked exclusivity, because variables captured by the escaping row closure
/// paid a dynamic exclusivity check on every access, several per row. Safe because the store
/// calls the closure on one thread, one row at a time, and no access to a property overlaps
/// another.
private final class BatchInsertCursor {
    @exclusivity(unchecked) var index = 0
    @exclusivity(unchecked) var dictionary = BatchInsertRowDictionary(names: [], slotByName: [:])
}

// MARK: - NSBatchUpdateRequest

extension NSBatchUpdateRequest: BatchStoreRequest {
    func run(in context: NSManagedObjectContext) throws -> NSPersistentStoreResult {
        let entity = try context.batchEntity(resolvedEntity, named: entityName, request: "batch update request")
        resolvedEntity = entity
        let name = entity.name ?? "?"
        var assignments: [StoreBatchUpdate.Assignment] = []
        for (key, value) in propertiesToUpdate ?? [:] {
            let propertyName: String
            if let string = key.base as? String {
                propertyName = string
            } else if let property = key.base as? NSPropertyDescription {
                propertyName = property.name
            } else {
                throw CoreDataError.make(NSCoreDataError, "A key of propertiesToUpdate of the batch update of '\(name)' is neither a property name nor a property description: \(key).")
            }
            guard let property = entity.propertiesByName[propertyName] else {
                throw CoreDataError.make(NSCoreDataError, "The batch update of '\(name)' sets '\(propertyName)', which is not a property of the entity.",
                                         userInfo: [NSValidationKeyErrorKey: propertyName])
            }
            guard let attribute = property as? NSAttributeDescription else {
                throw CoreDataError.make(NSCoreDataError, "The batch update of '\(name)' sets the relationship '\(propertyName)'; a batch update sets attributes only.",
                                         userInfo: [NSValidationKeyErrorKey: propertyName])
            }
            if attribute.isTransient || attribute is NSDerivedAttributeDescription {
                throw CoreDataError.make(NSCoreDataError, "The batch update of '\(name)' sets '\(propertyName)', which is \(attribute.isTransient ? "transient" : "derived") and has no stored value to set.",
                                         userInfo: [NSValidationKeyErrorKey: propertyName])
            }
            assignments.append(StoreBatchUpdate.Assignment(attribute: attribute, value: try updateValue(value, attribute: attribute, entityName: name)))
        }
        guard !assignments.isEmpty else {
            throw CoreDataError.make(NSCoreDataError, "The batch update of '\(name)' has no propertiesToUpdate.")
        }
        assignments.sort { $0.attribute.name < $1.attribute.name }
        let update = StoreBatchUpdate(entity: entity, includesSubentities: includesSubentities, predicate: predicate, assignments: assignments,
                                      needsKeys: resultType == .updatedObjectIDsResultType)
        let results = try context.runBatch(.update(update), entity: entity, affectedStores: affectedStores)
        switch resultType {
        case .statusOnlyResultType:
            return NSBatchUpdateResult(result: NSNumber(value: true), resultType: resultType)
        case .updatedObjectIDsResultType:
            let ids = results.flatMap { $0.changes.objectIDs(.update, store: $0.store, includingSideEffects: false) }
            return NSBatchUpdateResult(result: ids, resultType: resultType)
        case .updatedObjectsCountResultType:
            let count = results.reduce(0) { $0 + $1.changes.count(of: .update, includingSideEffects: false) }
            return NSBatchUpdateResult(result: NSNumber(value: count), resultType: resultType)
        }
    }

    /// A value of `propertiesToUpdate`: an expression for the store to evaluate, or a constant
    /// converted to the attribute's type here.
    private func updateValue(_ value: Any, attribute: NSAttributeDescription, entityName: String) throws -> StoreBatchUpdate.Assignment.Value {
        var value = value
        if let expression = value as? NSExpression {
            guard expression.node.isConstant(bound: []) else { return .expression(expression) }
            // A constant expression (`now()`, a literal) is evaluated once, here, like a constant.
            var evaluation = EvaluationContext()
            value = ExpressionEvaluator.value(of: expression.node, object: nil, context: &evaluation) ?? NSNull()
        }
        let type = attribute.attributeType
        if type == .transformableAttributeType {
            return .constant(value is NSNull ? .null : TransformableCoding.encode(value, attribute: attribute))
        }
        guard !AttributeConversion.isCustom(type), let converted = AttributeConversion.storeValue(value, type: type) else {
            throw CoreDataError.make(NSManagedObjectValidationError,
                                     "The batch update of '\(entityName)' gives '\(attribute.name)' a \(AttributeConversion.typeName(of: value)); the attribute is of type \(type.xmlName).",
                                     userInfo: [NSValidationKeyErrorKey: attribute.name, NSValidationValueErrorKey: value])
        }
        return .constant(converted)
    }
}

// MARK: - NSBatchDeleteRequest

extension NSBatchDeleteRequest: BatchStoreRequest {
    func run(in context: NSManagedObjectContext) throws -> NSPersistentStoreResult {
        let delete: StoreBatchDelete
        let entity: NSEntityDescription
        if let objectIDs {
            let roots = Set(objectIDs.map { ObjectIdentifier($0.entity.rootEntity) })
            guard roots.count <= 1 else {
                let names = Set(objectIDs.compactMap(\.entity.name)).sorted().joined(separator: ", ")
                throw CoreDataError.make(NSCoreDataError, "The batch delete's object IDs are of several entities (\(names)); NSBatchDeleteRequest(objectIDs:) takes IDs of one entity.")
            }
            if objectIDs.contains(where: \.isTemporaryID) {
                throw CoreDataError.make(NSCoreDataError, "The batch delete's object IDs include a temporary ID; only saved objects have rows to delete.")
            }
            guard let first = objectIDs.first else {
                return result(for: [])
            }
            entity = first.entity.rootEntity
            delete = StoreBatchDelete(entity: entity, includesSubentities: true, predicate: nil, objectIDs: objectIDs)
        } else {
            entity = try context.batchEntity(fetchRequest.entity, named: fetchRequest.entityName ?? "", request: "batch delete request")
            delete = StoreBatchDelete(entity: entity, includesSubentities: fetchRequest.includesSubentities, predicate: fetchRequest.predicate, objectIDs: nil)
        }
        let stores = objectIDs.map { ids in Array(Set(ids.compactMap { $0.persistentStore.map(ObjectIdentifier.init) })) }
        let affected = stores.map { keys in context.persistentStoreCoordinator?.persistentStores.filter { keys.contains(ObjectIdentifier($0)) } ?? [] }
        return result(for: try context.runBatch(.delete(delete), entity: entity, affectedStores: affected ?? affectedStores ?? fetchRequest.affectedStores))
    }

    private func result(for results: [(store: NSPersistentStore, changes: StoreBatchChanges)]) -> NSBatchDeleteResult {
        switch resultType {
        case .resultTypeStatusOnly:
            return NSBatchDeleteResult(result: NSNumber(value: true), resultType: resultType)
        case .resultTypeObjectIDs:
            return NSBatchDeleteResult(result: results.flatMap { $0.changes.objectIDs(.delete, store: $0.store) }, resultType: resultType)
        case .resultTypeCount:
            return NSBatchDeleteResult(result: NSNumber(value: results.reduce(0) { $0 + $1.changes.count(of: .delete) }), resultType: resultType)
        }
    }
}
