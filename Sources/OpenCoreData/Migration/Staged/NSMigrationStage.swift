import Foundation

/// One stage of a staged migration.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsmigrationstage>.
open class NSMigrationStage: NSObject {
    /// A name for the stage, for logs.
    open var label: String?

    /// Creates a stage.
    public override init() {
        super.init()
    }
}

/// A series of model versions, by version checksum, each of which a store migrates to from the
/// one before by lightweight migration.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nslightweightmigrationstage>.
open class NSLightweightMigrationStage: NSMigrationStage {
    /// The version checksums of the models, in migration order.
    public let versionChecksums: [String]

    /// Creates a lightweight stage for the models with these version checksums.
    public init(_ checksums: [String]) {
        versionChecksums = checksums
        super.init()
    }
}

/// A migration from one model version to the next with app code around it: the store is
/// migrated lightweight between the two, `willMigrateHandler` runs before (with the store open
/// in the current model) and `didMigrateHandler` after (open in the next model).
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nscustommigrationstage>.
open class NSCustomMigrationStage: NSMigrationStage {
    /// The model the stage migrates from.
    public let currentModel: NSManagedObjectModelReference
    /// The model the stage migrates to.
    public let nextModel: NSManagedObjectModelReference
    /// Runs before the store migrates, with `manager.container` open in `currentModel`.
    open var willMigrateHandler: ((NSStagedMigrationManager, NSCustomMigrationStage) throws -> Void)?
    /// Runs after the store migrated, with `manager.container` open in `nextModel`.
    open var didMigrateHandler: ((NSStagedMigrationManager, NSCustomMigrationStage) throws -> Void)?

    /// Creates a stage from one model version to the next.
    public init(migratingFrom currentModel: NSManagedObjectModelReference, to nextModel: NSManagedObjectModelReference) {
        self.currentModel = currentModel
        self.nextModel = nextModel
        super.init()
    }
}
