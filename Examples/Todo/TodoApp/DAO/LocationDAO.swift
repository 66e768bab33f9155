import OpenCoreData

/// Reads and writes `LocationEntity` rows, each call on its own background context.
public struct LocationDAO: Sendable {
    /// A location's fields, for `createOne` and `updateOne`.
    public struct Draft: Sendable, Equatable {
        public var id: String?
        public var placeName: String
        public var latitude: Double
        public var longitude: Double
        public var altitude: Double

        public init(id: String? = nil, placeName: String, latitude: Double = 0, longitude: Double = 0, altitude: Double = 0) {
            self.id = id
            self.placeName = placeName
            self.latitude = latitude
            self.longitude = longitude
            self.altitude = altitude
        }
    }

    let container: NSPersistentContainer

    public init(container: NSPersistentContainer) {
        self.container = container
    }

    // MARK: - CRUD

    /// Inserts a location and saves.
    public func createOne(_ draft: Draft) async throws -> LocationItem {
        try await container.performBackgroundTask { context in
            let location = Self.insert(draft, into: context)
            try context.save()
            return Self.item(from: location)
        }
    }

    /// Replaces the fields of the location whose `id` is `id` (keeping its id) and saves.
    public func updateOne(id: String, _ draft: Draft) async throws -> LocationItem? {
        try await container.performBackgroundTask { context in
            guard let location = try Self.entity(id: id, in: context) else { return nil }
            var draft = draft
            draft.id = id
            Self.apply(draft, to: location)
            try context.save()
            return Self.item(from: location)
        }
    }

    /// Deletes the location and saves; its to-dos stay, without a location.
    public func deleteOne(id: String) async throws -> Bool {
        try await container.performBackgroundTask { context in
            guard let location = try Self.entity(id: id, in: context) else { return false }
            context.delete(location)
            try context.save()
            return true
        }
    }

    /// The location whose `id` is `id`.
    public func findOne(id: String) async throws -> LocationItem? {
        try await container.performBackgroundTask { context in
            try Self.entity(id: id, in: context).map(Self.item(from:))
        }
    }

    /// The location named `placeName`, ignoring case.
    public func findOne(placeName: String) async throws -> LocationItem? {
        try await container.performBackgroundTask { context in
            try Self.entity(placeName: placeName, in: context).map(Self.item(from:))
        }
    }

    /// Locations whose name contains `search`, sorted by name, one page of them.
    public func findMany(search: String? = nil, limit: Int? = nil, offset: Int = 0) async throws -> [LocationItem] {
        try await container.performBackgroundTask { context in
            let request: NSFetchRequest<LocationEntity> = LocationEntity.fetchRequest()
            if let search, !search.isEmpty {
                request.predicate = NSPredicate(format: "placeName CONTAINS[cd] %@", search)
            }
            request.sortDescriptors = [NSSortDescriptor(key: "placeName", ascending: true), NSSortDescriptor(key: "id", ascending: true)]
            request.fetchOffset = max(0, offset)
            request.fetchLimit = max(0, limit ?? 0)
            return try context.fetch(request).map(Self.item(from:))
        }
    }

    // MARK: - In a context

    /// The location whose `id` is `id`, in `context`.
    static func entity(id: String, in context: NSManagedObjectContext) throws -> LocationEntity? {
        let request: NSFetchRequest<LocationEntity> = LocationEntity.fetchRequest()
        request.predicate = NSPredicate(format: "id == %@", id)
        request.fetchLimit = 1
        return try context.fetch(request).first
    }

    /// The location named `placeName` (ignoring case), in `context`.
    static func entity(placeName: String, in context: NSManagedObjectContext) throws -> LocationEntity? {
        let request: NSFetchRequest<LocationEntity> = LocationEntity.fetchRequest()
        request.predicate = NSPredicate(format: "placeName ==[c] %@", placeName)
        request.sortDescriptors = [NSSortDescriptor(key: "id", ascending: true)]
        request.fetchLimit = 1
        return try context.fetch(request).first
    }

    /// A new location in `context` with the draft's fields.
    static func insert(_ draft: Draft, into context: NSManagedObjectContext) -> LocationEntity {
        let location = LocationEntity(context: context)
        apply(draft, to: location)
        return location
    }

    static func apply(_ draft: Draft, to location: LocationEntity) {
        location.id = draft.id ?? location.id ?? UUID().uuidString
        location.placeName = draft.placeName
        location.latitude = draft.latitude
        location.longitude = draft.longitude
        location.altitude = draft.altitude
    }

    /// The value of a location.
    static func item(from location: LocationEntity) -> LocationItem {
        LocationItem(id: location.id ?? "", placeName: location.placeName ?? "", latitude: location.latitude,
                     longitude: location.longitude, altitude: location.altitude, todoCount: location.todos?.count ?? 0)
    }
}
