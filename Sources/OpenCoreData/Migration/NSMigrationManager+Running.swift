import Foundation

// MARK: - Running a migration

extension NSMigrationManager {
    /// How many source instances are migrated between two saves of the destination.
    static let batchSize = 1_000

    /// Migrates the store at `sourceURL` into the store at `destinationURL` through `mappings`,
    /// creating the destination if it does not exist and adding to it if it does.
    ///
    /// The source is opened read-only and never changed. The destination is built in a
    /// temporary store and moved into place at the end, so a failed or cancelled migration
    /// leaves an existing destination as it was and creates none.
    ///
    /// - Throws: `NSMigrationMissingMappingModelError` (134140) without a mapping model; the
    ///   error given to `cancelMigrationWithError(_:)`; a policy's error; a validation error of
    ///   a destination instance; `NSMigrationError` (134110) for a mapping that cannot run (a
    ///   property the destination entity lacks, an unknown `FUNCTION` selector, a missing policy class).
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nsmigrationmanager/migratestore(from:sourcetype:options:with:todestinationurl:destinationtype:destinationoptions:)>.
    public func migrateStore(from sourceURL: URL, sourceType: String, options sourceOptions: [AnyHashable: Any]? = nil,
                             with mappings: NSMappingModel?, toDestinationURL destinationURL: URL, destinationType: String,
                             destinationOptions: [AnyHashable: Any]? = nil) throws {
        guard let mapping = mappings else {
            throw CoreDataError.make(NSMigrationMissingMappingModelError, "migrateStore needs a mapping model; none was given.",
                                     userInfo: [NSFilePathErrorKey: sourceURL.path])
        }
        reset()
        mappingModel = mapping
        let destination = try MigrationDestination(url: destinationURL, type: destinationType)
        do {
            let sourceCoordinator = NSPersistentStoreCoordinator(managedObjectModel: sourceModel)
            var readOptions = sourceOptions ?? [:]
            readOptions[NSReadOnlyPersistentStoreOption] = true
            for key in [NSMigratePersistentStoresAutomaticallyOption, NSInferMappingModelAutomaticallyOption] { readOptions[key] = nil }
            let sourceStore = try sourceCoordinator.addPersistentStore(ofType: sourceType, configurationName: nil, at: sourceURL, options: readOptions)
            let destinationCoordinator = NSPersistentStoreCoordinator(managedObjectModel: destinationModel)
            let destinationStore = try destinationCoordinator.addPersistentStore(ofType: destinationType, configurationName: nil,
                                                                                 at: destination.workingURL, options: destinationOptions)
            defer {
                sourceContext.performAndWait { sourceContext.reset(); destinationContext.reset() }
                try? sourceCoordinator.remove(sourceStore)
                try? destinationCoordinator.remove(destinationStore)
            }
            sourceContext.persistentStoreCoordinator = sourceCoordinator
            destinationContext.persistentStoreCoordinator = destinationCoordinator
            destinationContext.defersValidation = true
            try sourceContext.performAndWait { try run(mapping) }
        } catch {
            destination.discard()
            throw error
        }
        try destination.commit()
    }

    /// Migrates a store (iOS 17 spelling with `StoreType`).
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nsmigrationmanager/migratestore(from:type:options:mapping:to:type:options:)>.
    public func migrateStore(from sourceURL: URL, type sourceType: NSPersistentStore.StoreType, options sourceOptions: [AnyHashable: Any]? = nil,
                             mapping mappingModel: NSMappingModel, to destinationURL: URL, type destinationType: NSPersistentStore.StoreType,
                             options destinationOptions: [AnyHashable: Any]? = nil) throws {
        try migrateStore(from: sourceURL, sourceType: sourceType.rawValue, options: sourceOptions, with: mappingModel,
                         toDestinationURL: destinationURL, destinationType: destinationType.rawValue, destinationOptions: destinationOptions)
    }

    // MARK: - The three passes

    /// Creates instances, then relationships, then validates, mapping by mapping; Apple's order.
    private func run(_ mapping: NSMappingModel) throws {
        let entityMappings = mapping.entityMappings ?? []
        let policies = try entityMappings.map(policy(for:))
        let steps = Float(max(entityMappings.count * 3, 1))
        var done: Float = 0
        func advance() { done += 1; migrationProgress = min(done / steps, 1) }

        for (entityMapping, policy) in zip(entityMappings, policies) {
            currentEntityMapping = entityMapping
            try policy.begin(entityMapping, with: self)
            if entityMapping.mappingType != .removeEntityMappingType, let expression = entityMapping.sourceExpression {
                try forEachSourceInstance(of: expression, mapping: entityMapping) { source in
                    try policy.createDestinationInstances(forSource: source, in: entityMapping, manager: self)
                }
            }
            try policy.endInstanceCreation(forMapping: entityMapping, manager: self)
            try checkCancelled()
            try flush()
            advance()
        }
        for (entityMapping, policy) in zip(entityMappings, policies) {
            currentEntityMapping = entityMapping
            try forEachDestinationInstance(of: entityMapping) { destination in
                try policy.createRelationships(forDestination: destination, in: entityMapping, manager: self)
            }
            try policy.endRelationshipCreation(forMapping: entityMapping, manager: self)
            try checkCancelled()
            try flush()
            advance()
        }
        try validateDestination()
        for (entityMapping, policy) in zip(entityMappings, policies) {
            currentEntityMapping = entityMapping
            try policy.performCustomValidation(forMapping: entityMapping, manager: self)
            try policy.end(entityMapping, manager: self)
            try checkCancelled()
            try flush()
            advance()
        }
        migrationProgress = 1
    }

    /// The policy an entity mapping names, or the default one.
    private func policy(for entityMapping: NSEntityMapping) throws -> NSEntityMigrationPolicy {
        guard let name = entityMapping.entityMigrationPolicyClassName, !name.isEmpty else { return NSEntityMigrationPolicy() }
        guard let type = MigrationPolicyRegistry.shared.policyClass(named: name) else {
            throw CoreDataError.make(NSEntityMigrationPolicyError,
                                     "The entity mapping \(entityMapping.name ?? "") names the migration policy class \(name), which was not found. Name it module-qualified or call \((name.split(separator: ".").last).map(String.init) ?? name).register() before migrating.",
                                     userInfo: ["entityMapping": entityMapping.name ?? "", "policyClassName": name])
        }
        return type.init()
    }

    /// Runs `body` for each source instance the expression yields, a page of rows at a time
    /// when it is a fetch, saving the destination after each page.
    private func forEachSourceInstance(of expression: NSExpression, mapping entityMapping: NSEntityMapping,
                                       _ body: (NSManagedObject) throws -> Void) throws {
        let bindings = self.bindings(mapping: entityMapping, policy: nil)
        if let fetch = expression as? NSFetchRequestExpression, !fetch.isCountOnlyRequest {
            let request = fetch.requestExpression.expressionValue(with: nil, context: bindings)
            try throwExpressionError()
            let context = fetch.contextExpression.expressionValue(with: nil, context: bindings) as? NSManagedObjectContext ?? sourceContext
            if let request = request as? NSFetchRequest<NSFetchRequestResult>, let entityName = request.entityName ?? request.entity?.name {
                let identifiers = NSFetchRequest<NSManagedObjectID>(entityName: entityName)
                identifiers.resultType = .managedObjectIDResultType
                identifiers.predicate = request.predicate
                identifiers.sortDescriptors = request.sortDescriptors
                identifiers.includesSubentities = request.includesSubentities
                let ids = try context.fetch(identifiers)
                var start = 0
                while start < ids.count {
                    let page = Array(ids[start..<min(start + Self.batchSize, ids.count)])
                    for source in context.batchedFaults(for: page) {
                        try body(source)
                        try checkCancelled()
                    }
                    try flush()
                    start += page.count
                }
                return
            }
        }
        let value = expression.expressionValue(with: nil, context: bindings)
        try throwExpressionError()
        for (position, source) in Self.objects(in: value).enumerated() {
            try body(source)
            try checkCancelled()
            if (position + 1) % Self.batchSize == 0 { try flush() }
        }
    }

    /// Runs `body` for each destination instance an entity mapping made, a page at a time, with
    /// their source instances loaded in one query per page.
    private func forEachDestinationInstance(of entityMapping: NSEntityMapping, _ body: (NSManagedObject) throws -> Void) throws {
        let pairs = associations.settledPairs(mapping: entityMapping.name ?? "")
        let destinationStore = destinationContext.persistentStoreCoordinator?.persistentStores.first
        let sourceStore = sourceContext.persistentStoreCoordinator?.persistentStores.first
        var start = 0
        while start < pairs.destinations.count {
            let page = start..<min(start + Self.batchSize, pairs.destinations.count)
            let ids = pairs.destinations[page].compactMap { associations.objectID(for: $0, model: destinationModel, store: destinationStore) }
            let destinations = destinationContext.batchedFaults(for: ids)
            let sourceIDs = pairs.sources[page].compactMap { associations.objectID(for: $0, model: sourceModel, store: sourceStore) }
            let sources = sourceContext.batchedFaults(for: sourceIDs)
            for destination in destinations {
                try body(destination)
                try checkCancelled()
            }
            withExtendedLifetime(sources) {}
            try flush()
            start += page.count
        }
    }

    /// Validates every destination instance as a save would, a page at a time.
    private func validateDestination() throws {
        var errors: [NSError] = []
        for entity in destinationModel.entities where !entity.isAbstract {
            let request = NSFetchRequest<NSManagedObjectID>(entityName: entity.name ?? "")
            request.resultType = .managedObjectIDResultType
            request.includesSubentities = false
            let ids = try destinationContext.fetch(request)
            var start = 0
            while start < ids.count && errors.count < 100 {
                let page = Array(ids[start..<min(start + Self.batchSize, ids.count)])
                for object in destinationContext.batchedFaults(for: page) {
                    do { try object.validateForInsert() } catch let error as NSError {
                        if let detailed = error.userInfo[NSDetailedErrorsKey] as? [NSError] { errors += detailed } else { errors.append(error) }
                    }
                }
                releaseMemory()
                start += page.count
            }
        }
        if errors.count == 1 { throw errors[0] }
        if errors.count > 1 {
            throw CoreDataError.make(NSValidationMultipleErrorsError, "Multiple validation errors occurred in the migrated store.",
                                     userInfo: [NSDetailedErrorsKey: errors])
        }
    }

    // MARK: - Batches

    /// Saves what was made so far and lets go of rows no one holds.
    private func flush() throws {
        try associations.settle(in: destinationContext, model: destinationModel)
        if destinationContext.hasChanges { try destinationContext.save() }
        releaseMemory()
    }

    /// Turns the destination's saved objects into faults (breaking reference cycles between them,
    /// while objects a policy holds stay usable) and forgets the source rows.
    private func releaseMemory() {
        for object in destinationContext.registeredObjects where !object.hasChanges && !object.isFault {
            destinationContext.refresh(object, mergeChanges: false)
        }
        destinationContext.releaseRowPins()
        sourceContext.reset()
    }

    private func checkCancelled() throws {
        if let cancellation { throw cancellation }
    }

    // MARK: - Property mappings

    /// The variables of a mapping's expressions.
    func bindings(mapping: NSEntityMapping, policy: NSEntityMigrationPolicy?, source: NSManagedObject? = nil,
                  destination: NSManagedObject? = nil, property: NSPropertyMapping? = nil) -> NSMutableDictionary {
        let bindings = NSMutableDictionary()
        bindings[NSMigrationManagerKey] = self
        bindings[NSMigrationEntityMappingKey] = mapping
        if let policy { bindings[NSMigrationEntityPolicyKey] = policy }
        if let source { bindings[NSMigrationSourceObjectKey] = source }
        if let destination { bindings[NSMigrationDestinationObjectKey] = destination }
        if let property { bindings[NSMigrationPropertyMappingKey] = property }
        return bindings
    }

    /// Sets each property mapping's value on the destination instance.
    func applyPropertyMappings(_ mappings: [NSPropertyMapping]?, of entityMapping: NSEntityMapping, policy: NSEntityMigrationPolicy,
                               source: NSManagedObject?, destination: NSManagedObject) throws {
        for propertyMapping in mappings ?? [] {
            guard let name = propertyMapping.name, let expression = propertyMapping.valueExpression else { continue }
            let bindings = self.bindings(mapping: entityMapping, policy: policy, source: source, destination: destination, property: propertyMapping)
            let value = expression.expressionValue(with: source, context: bindings)
            try throwExpressionError()
            try setMigratedValue(value, forKey: name, of: destination, mapping: entityMapping)
        }
    }

    private func setMigratedValue(_ value: Any?, forKey key: String, of destination: NSManagedObject, mapping: NSEntityMapping) throws {
        guard let property = destination.entity.propertiesByName[key] else {
            throw CoreDataError.make(NSMigrationError,
                                     "The entity mapping \(mapping.name ?? "") sets '\(key)', which the destination entity \(destination.entity.name ?? "") does not have.",
                                     userInfo: ["entityMapping": mapping.name ?? "", "property": key])
        }
        // The store computes derived attributes; they cannot be set (Apple's mapping editor
        // leaves them out, an inferred mapping copies them).
        if property is NSDerivedAttributeDescription { return }
        guard let relationship = property as? NSRelationshipDescription else {
            destination.setValue(value, forKey: key)
            return
        }
        let objects = Self.objects(in: value)
        for object in objects where object.managedObjectContext !== destinationContext {
            throw CoreDataError.make(NSMigrationError,
                                     "The entity mapping \(mapping.name ?? "") sets the relationship '\(key)' of \(destination.entity.name ?? "") to \(object.entity.name ?? "an object") that is not a destination instance.",
                                     userInfo: ["entityMapping": mapping.name ?? "", "property": key])
        }
        if !relationship.isToMany {
            destination.setValue(objects.first, forKey: key)
        } else if relationship.isOrdered {
            destination.setValue(NSOrderedSet(array: objects), forKey: key)
        } else {
            destination.setValue(Set(objects), forKey: key)
        }
    }

    /// The managed objects in a value: one object, a collection of them, or none.
    static func objects(in value: Any?) -> [NSManagedObject] {
        if let object = value as? NSManagedObject { return [object] }
        guard let elements = PredicateValue.elements(value) else { return [] }
        return elements.values.compactMap { $0 as? NSManagedObject }
    }

    func throwExpressionError() throws {
        if let error = expressionError {
            expressionError = nil
            throw error
        }
    }
}

// MARK: - The destination's files

/// Where a migration writes: a temporary store beside the destination (a copy of it when it
/// exists), moved into place once the migration succeeded. Stores without files are written directly.
struct MigrationDestination {
    let url: URL
    let workingURL: URL
    let isStaged: Bool

    init(url: URL, type: String) throws {
        self.url = url
        guard type == NSSQLiteStoreType, url.isFileURL else {
            (workingURL, isStaged) = (url, false)
            return
        }
        workingURL = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).migrating-\(UUID().uuidString)")
        isStaged = true
        if FileManager.default.fileExists(atPath: url.path) {
            try SQLiteStoreFiles.replace(workingURL, with: url, timeout: SQLiteStoreOptions.defaultBusyTimeout)
        }
    }

    /// Moves the migrated store into place.
    func commit() throws {
        guard isStaged else { return }
        defer { discard() }
        try SQLiteStoreFiles.replace(url, with: workingURL, timeout: SQLiteStoreOptions.defaultBusyTimeout)
    }

    /// Removes the temporary store.
    func discard() {
        guard isStaged else { return }
        SQLiteStoreFiles.removeTemporaryStore(at: workingURL)
    }
}
