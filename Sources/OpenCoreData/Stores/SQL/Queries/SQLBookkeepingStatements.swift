import Foundation

/// The statements of Apple's bookkeeping tables, built once per dialect: `Z_PRIMARYKEY` (one
/// row per entity, `Z_MAX` the last primary key given out in its hierarchy), `Z_METADATA` (the
/// store's UUID and metadata plist) and `Z_MODELCACHE` (the model a store was written with).
///
/// Every value is a bound parameter; the comment of each statement lists them in order.
package struct SQLBookkeepingStatements: Sendable {
    /// `CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)`
    package let createPrimaryKeyTable: String
    /// `CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)`
    package let createMetadataTable: String
    /// `CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)`
    package let createModelCacheTable: String
    /// Z_ENT, Z_NAME, Z_SUPER, Z_MAX.
    package let insertEntity: String
    /// Z_ENT → Z_MAX.
    package let selectMaxKey: String
    /// Z_MAX, Z_ENT.
    package let setMaxKey: String
    /// The value of a NULL Z_MAX (0), the highest key a save used, Z_ENT: `Z_MAX` only grows.
    package let raiseMaxKey: String
    /// Z_VERSION, Z_UUID, Z_PLIST.
    package let insertMetadata: String
    /// Z_PLIST, Z_VERSION.
    package let updateMetadata: String
    /// No parameters: the `Z_ENT, Z_NAME, Z_SUPER, Z_MAX` of every entity, by `Z_ENT`.
    package let selectEntities: String
    /// The limit (1): the archived model of the first `Z_MODELCACHE` row.
    package let selectModelCache: String
    /// Z_CONTENT: adds the archived model (the table holds one row).
    package let insertModelCache: String
    /// No parameters: removes every `Z_MODELCACHE` row, before a new model is written.
    package let deleteModelCache: String

    /// The `Z_VERSION` of the one metadata row Apple writes.
    package static let metadataVersion: Int64 = 1

    package init(dialect: any SQLDialect) {
        createPrimaryKeyTable = SQLCreateTable("Z_PRIMARYKEY", columns: [
            .init("Z_ENT", .integer, isPrimaryKey: true), .init("Z_NAME", .varchar), .init("Z_SUPER", .integer), .init("Z_MAX", .integer),
        ], padsColumnList: false).sql(in: dialect)
        createMetadataTable = SQLCreateTable("Z_METADATA", columns: [
            .init("Z_VERSION", .integer, isPrimaryKey: true), .init("Z_UUID", .varchar, length: 255), .init("Z_PLIST", .blob),
        ], padsColumnList: false).sql(in: dialect)
        createModelCacheTable = SQLCreateTable("Z_MODELCACHE", columns: [.init("Z_CONTENT", .blob)], padsColumnList: false).sql(in: dialect)
        insertEntity = SQLInsert(into: "Z_PRIMARYKEY", columns: ["Z_ENT", "Z_NAME", "Z_SUPER", "Z_MAX"]).sql(in: dialect)

        var select = SQLSelect(from: dialect.identifier("Z_PRIMARYKEY"))
        select.columns = [dialect.identifier("Z_MAX")]
        select.conditions = [dialect.equalsParameter("Z_ENT")]
        selectMaxKey = select.render(in: dialect).sql(in: dialect)
        setMaxKey = SQLUpdate("Z_PRIMARYKEY", set: ["Z_MAX"], where: ["Z_ENT"]).sql(in: dialect)
        var raise = SQLUpdate("Z_PRIMARYKEY", set: [], where: ["Z_ENT"])
        let marker = SQLFragment.unboundParameter
        raise.set("Z_MAX", to: dialect.greatest("COALESCE(" + dialect.identifier("Z_MAX") + ", " + marker + ")", marker))
        raiseMaxKey = raise.sql(in: dialect)

        insertMetadata = SQLInsert(into: "Z_METADATA", columns: ["Z_VERSION", "Z_UUID", "Z_PLIST"]).sql(in: dialect)
        updateMetadata = SQLUpdate("Z_METADATA", set: ["Z_PLIST"], where: ["Z_VERSION"]).sql(in: dialect)

        var entities = SQLSelect(from: dialect.identifier("Z_PRIMARYKEY"))
        entities.columns = ["Z_ENT", "Z_NAME", "Z_SUPER", "Z_MAX"].map(dialect.identifier)
        entities.orderBy = [dialect.identifier("Z_ENT")]
        selectEntities = entities.render(in: dialect).sql(in: dialect)
        var cache = SQLSelect(from: dialect.identifier("Z_MODELCACHE"))
        cache.columns = [dialect.identifier("Z_CONTENT")]
        cache.limit = 1
        selectModelCache = cache.render(in: dialect).sql(in: dialect)
        insertModelCache = SQLInsert(into: "Z_MODELCACHE", columns: ["Z_CONTENT"]).sql(in: dialect)
        deleteModelCache = SQLDelete(from: "Z_MODELCACHE", where: []).sql(in: dialect)
    }
}
