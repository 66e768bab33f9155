import OpenCoreData

/// Locations as the commands see them: by place name, created on first use.
public struct LocationRepository: Sendable {
    let dao: LocationDAO

    public init(container: NSPersistentContainer) {
        dao = LocationDAO(container: container)
    }

    /// Creates a location; throws when one with that name (ignoring case) exists.
    public func add(name: String, latitude: Double = 0, longitude: Double = 0, altitude: Double = 0) async throws -> LocationItem {
        let name = try Validate.title(name, of: "location")
        guard (-90...90).contains(latitude), (-180...180).contains(longitude) else {
            throw TodoAppError("latitude must be within -90...90 and longitude within -180...180")
        }
        if try await dao.findOne(placeName: name) != nil { throw TodoAppError("location '\(name)' already exists") }
        return try await dao.createOne(.init(placeName: name, latitude: latitude, longitude: longitude, altitude: altitude))
    }

    /// Every location, sorted by name.
    public func list(search: String? = nil) async throws -> [LocationItem] {
        try await dao.findMany(search: search)
    }

    /// The location named `name` (ignoring case), or whose id is `name`.
    public func find(_ name: String) async throws -> LocationItem {
        if let location = try await dao.findOne(placeName: name) { return location }
        if let location = try await dao.findOne(id: name) { return location }
        throw TodoAppError.notFound("location", name)
    }

    /// The location named `name`, created (at 0, 0) when there is none.
    public func findOrCreate(_ name: String) async throws -> LocationItem {
        let name = try Validate.title(name, of: "location")
        if let location = try await dao.findOne(placeName: name) { return location }
        return try await dao.createOne(.init(placeName: name))
    }
}
