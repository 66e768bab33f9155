import Foundation
@testable import OpenCoreData

/// Temporary store files for the SQLite suites; the whole folder is removed when the test process exits.
enum TestStoreFiles {
    static let root: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("OpenCoreDataTests-\(ProcessInfo.processInfo.processIdentifier)", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: TestStoreFiles.root) }
        return url
    }()

    /// A folder in memory (`/dev/shm`) when the system has one, else `root`: for tests that
    /// write thousands of small stores (fuzzing), where SQLite's syncs to disk would cost more
    /// than the rest of an input. Removed when the test process exits.
    static let memoryRoot: URL = {
        let shm = URL(fileURLWithPath: "/dev/shm", isDirectory: true)
        guard FileManager.default.isWritableFile(atPath: shm.path) else { return root }
        let url = shm.appendingPathComponent("OpenCoreDataTests-\(ProcessInfo.processInfo.processIdentifier)", isDirectory: true)
        guard (try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)) != nil else { return root }
        atexit { try? FileManager.default.removeItem(at: TestStoreFiles.memoryRoot) }
        return url
    }()

    /// A fresh folder for one test, with a store URL inside it (under `root`, or another parent).
    static func newStoreURL(_ name: String = "Store.sqlite", in parent: URL = root) -> URL {
        let folder = parent.appendingPathComponent(UUID().uuidString, isDirectory: true)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent(name)
    }
}

extension TestModels {
    /// A private-queue context on a new SQLite store in a temporary file.
    static func sqliteContext(_ model: NSManagedObjectModel, url: URL = TestStoreFiles.newStoreURL(), options: [AnyHashable: Any]? = nil) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// A model with a uniqueness constraint on `email`.
    static func uniqueUserModel() -> NSManagedObjectModel {
        let user = entity("User", [attribute("email", .stringAttributeType), attribute("name", .stringAttributeType), attribute("age", .integer64AttributeType)])
        user.uniquenessConstraints = [["email"]]
        let model = NSManagedObjectModel()
        model.entities = [user]
        return model
    }

    /// Ordered relationships: Playlist.songs (ordered, inverse to-one) and Playlist.tags ↔ Label.playlists (ordered many-to-many).
    static func orderedModel() -> NSManagedObjectModel {
        let playlist = entity("Playlist", [attribute("name", .stringAttributeType)])
        let song = entity("Song", [attribute("title", .stringAttributeType)])
        let label = entity("Label", [attribute("text", .stringAttributeType)])
        let songs = relationship("songs", to: song, toMany: true, ordered: true)
        let songPlaylist = relationship("playlist", to: playlist, toMany: false)
        inverse(songs, songPlaylist)
        let labels = relationship("labels", to: label, toMany: true, ordered: true)
        let playlists = relationship("playlists", to: playlist, toMany: true)
        inverse(labels, playlists)
        playlist.properties += [songs, labels]
        song.properties += [songPlaylist]
        label.properties += [playlists]
        let model = NSManagedObjectModel()
        model.entities = [playlist, song, label]
        return model
    }

    /// Inheritance: Vehicle (abstract) → Car → SportsCar, and Garage.vehicles ↔ Vehicle.garage.
    static func vehicleModel() -> NSManagedObjectModel {
        let vehicle = entity("Vehicle", [attribute("name", .stringAttributeType)])
        vehicle.isAbstract = true
        let car = entity("Car", [attribute("doors", .integer16AttributeType)])
        let sports = entity("SportsCar", [attribute("topSpeed", .doubleAttributeType)])
        let garage = entity("Garage", [attribute("city", .stringAttributeType)])
        vehicle.subentities = [car]
        car.subentities = [sports]
        let vehicles = relationship("vehicles", to: vehicle, toMany: true)
        let vehicleGarage = relationship("garage", to: garage, toMany: false)
        inverse(vehicles, vehicleGarage)
        let favourite = relationship("favourite", to: vehicle, toMany: false)
        vehicle.properties += [vehicleGarage]
        garage.properties += [vehicles, favourite]
        let model = NSManagedObjectModel()
        model.entities = [vehicle, car, sports, garage]
        return model
    }
}
