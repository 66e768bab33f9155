import Foundation
import OpenCoreData

/// What an export wrote.
public struct ExportSummary: Sendable {
    /// Objects written per entity.
    public var objectsByEntity: [String: Int] = [:]
    public var total: Int { objectsByEntity.values.reduce(0, +) }
}

/// Writes a whole store as JSON in constant memory.
///
/// Each entity's rows are walked by primary key, a page at a time (keyset paging on the raw
/// file); a page becomes faults that fire together with one query (like a `fetchBatchSize`
/// fetch), is written out, and the context is `reset()` before the next page. Nothing grows
/// with the store but the output.
enum Exporter {
    static let defaultBatchSize = 500

    static func export(session: StoreSession, to sink: any TextSink, batchSize: Int = defaultBatchSize,
                       progress: ((_ total: Int) -> ProgressReporter)? = nil) throws -> ExportSummary {
        let walker = try StoreWalker(session: session, batchSize: batchSize)
        let reporter = progress?(walker.total)

        let writer = JSONWriter(sink: sink)
        try writer.beginObject()
        try writer.member("format", .string(ExportFormat.name))
        try writer.member("version", .integer(ExportFormat.version))
        try writer.member("exportedAt", .string(ISO8601.format(Date())))
        try writer.member("store", .object(JSONObject([
            ("path", .string(session.url.path)),
            ("uuid", .string(session.store.identifier ?? "")),
            ("model", .string(session.resolved.originDescription)),
        ])))
        try writer.member("entities", .object(JSONObject(walker.steps.map { ($0.name, .integer($0.count)) })), inline: true)
        try writer.key("objects")
        try writer.beginObject()

        var summary = ExportSummary()
        var fields: [String: (attributes: [NSAttributeDescription], relationships: [NSRelationshipDescription])] = [:]
        try walker.forEachPage { step, objects in
            let entity = step.entity
            if fields[step.name] == nil {
                fields[step.name] = (entity.properties.compactMap { $0 as? NSAttributeDescription }.filter(ValueCoding.isCarried),
                                     entity.properties.compactMap { $0 as? NSRelationshipDescription }.filter { !$0.isTransient })
            }
            let (attributes, relationships) = fields[step.name]!
            for object in objects {
                let value = record(object, entity: step.name, attributes: attributes, relationships: relationships)
                // Nothing is written for an object part of which could not be read.
                try walker.session.throwReadFailure()
                try writer.key(URIText.of(object.objectID))
                try writer.value(value, inline: true)
            }
            summary.objectsByEntity[step.name, default: 0] += objects.count
            reporter?.advance(by: objects.count, detail: step.name)
        }
        try writer.endObject()
        try writer.endObject()
        try writer.finish()
        try sink.flush()
        reporter?.finish()
        return summary
    }

    /// One object: its entity, attribute values and relationships as URIs.
    static func record(_ object: NSManagedObject, entity: String, attributes: [NSAttributeDescription],
                       relationships: [NSRelationshipDescription]) -> JSONValue {
        var values = JSONObject()
        for attribute in attributes {
            values[attribute.name] = ValueCoding.json(object.value(forKey: attribute.name), attribute: attribute)
        }
        var references = JSONObject()
        for relationship in relationships {
            let uris = object.objectIDs(forRelationshipNamed: relationship.name).map { JSONValue.string(URIText.of($0)) }
            references[relationship.name] = relationship.isToMany ? .array(uris) : (uris.first ?? .null)
        }
        return .object(JSONObject([("entity", .string(entity)), ("attributes", .object(values)), ("relationships", .object(references))]))
    }
}
