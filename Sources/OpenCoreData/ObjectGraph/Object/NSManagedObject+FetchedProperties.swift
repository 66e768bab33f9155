import Foundation

// MARK: - Fetched properties

extension NSManagedObject {
    /// The value of a fetched property: the results of its fetch request, as an array.
    ///
    /// As Apple documents for `NSFetchedPropertyDescription`: the request runs on first access,
    /// with `$FETCH_SOURCE` bound to this object and `$FETCHED_PROPERTY` to the description; the
    /// request's entity is the destination. The results are not live: they are cached until the
    /// object is refreshed (`refresh(_:mergeChanges:)`) or its context is reset.
    ///
    /// An object outside a context has no results. A fetch that fails (a store error, or a key
    /// the destination entity does not have) gives an empty array for this access, since
    /// `value(forKey:)` cannot throw; it is not cached (the next access fetches again), and the
    /// context's next fetch or save throws the error (`ContextReadFailures`).
    package func fetchedPropertyValue(_ property: NSFetchedPropertyDescription) -> [Any] {
        guard let context = _context else { return [] }
        let key = ObjectIdentifier(self)
        if let cached = context.fetchedPropertyResults[key]?[property.name] { return cached }
        let results: [Any]
        do {
            results = try context.fetch(fetchRequest(for: property))
        } catch {
            context.noteReadFailure(error, objectID: objectID, relationship: property.name)
            return []
        }
        // Replaces nothing (the cache had no entry), so no object is freed during the access.
        context.fetchedPropertyResults[key, default: [:]][property.name] = results
        return results
    }

    /// The property's request with `$FETCH_SOURCE` and `$FETCHED_PROPERTY` substituted.
    private func fetchRequest(for property: NSFetchedPropertyDescription) throws -> NSFetchRequest<NSFetchRequestResult> {
        guard let template = property.fetchRequest else {
            throw CoreDataError.make(NSCoreDataError, "The fetched property '\(property.name)' has no fetch request.")
        }
        let request = template.retyped(NSFetchRequestResult.self)
        let variables: [String: Any] = ["FETCH_SOURCE": self, "FETCHED_PROPERTY": property]
        request.predicate = template.predicate?.withSubstitutionVariables(variables)
        request.havingPredicate = template.havingPredicate?.withSubstitutionVariables(variables)
        return request
    }
}

// MARK: - The cache

extension NSManagedObjectContext {
    /// Drops the cached fetched-property results of an object, so the next access fetches again.
    package func forgetFetchedProperties(of object: NSManagedObject) {
        guard !fetchedPropertyResults.isEmpty else { return }
        // Released after the dictionary access ends: freeing the results frees objects, whose
        // deinit comes back here.
        let dropped = fetchedPropertyResults.removeValue(forKey: ObjectIdentifier(object))
        withExtendedLifetime(dropped) {}
    }

    /// Drops every cached fetched-property result (on reset).
    package func forgetAllFetchedProperties() {
        var dropped: [ObjectIdentifier: [String: [Any]]] = [:]
        swap(&dropped, &fetchedPropertyResults)
        withExtendedLifetime(dropped) {}
    }
}
