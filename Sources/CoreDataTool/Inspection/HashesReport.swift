import Foundation
import OpenCoreData

/// What `coredata model hashes` prints: entity (and optionally property) version hashes, the
/// digest and the checksum a store made with the model would record.
enum HashesReport {
    static func hex(_ data: Data) -> String {
        data.map { byte in
            let digits = String(byte, radix: 16)
            return byte < 16 ? "0" + digits : digits
        }.joined()
    }

    static func json(_ resolved: ResolvedModel, properties: Bool) -> JSONValue {
        let model = resolved.model
        let hashes = model.entityVersionHashesByName
        var root = JSONObject()
        root["source"] = .string(resolved.originDescription)
        var entities = JSONObject()
        for entity in ModelReport.sortedEntities(model) {
            guard let name = entity.name, let hash = hashes[name] else { continue }
            var item = JSONObject([("hex", .string(hex(hash))), ("base64", .string(hash.base64EncodedString()))])
            if properties {
                var byProperty = JSONObject()
                for property in ModelReport.sortedProperties(entity) {
                    let hash = property.versionHash
                    byProperty[property.name] = .object(JSONObject([("hex", .string(hex(hash))), ("base64", .string(hash.base64EncodedString()))]))
                }
                item["properties"] = .object(byProperty)
            }
            entities[name] = .object(item)
        }
        root["entities"] = .object(entities)
        root["digest"] = .string(VersionHasher.digest(of: hashes))
        root["checksum"] = .string(model.versionChecksum)
        return .object(root)
    }

    static func text(_ resolved: ResolvedModel, properties: Bool) -> String {
        let model = resolved.model
        let hashes = model.entityVersionHashesByName
        var text = "Model: \(resolved.originDescription)\n\n"
        var table = TextTable(headers: ["entity", "version hash (hex)", "base64"])
        for entity in ModelReport.sortedEntities(model) {
            guard let name = entity.name, let hash = hashes[name] else { continue }
            table.append([name, hex(hash), hash.base64EncodedString()])
            if properties {
                for property in ModelReport.sortedProperties(entity) {
                    let hash = property.versionHash
                    table.append(["  .\(property.name)", hex(hash), hash.base64EncodedString()])
                }
            }
        }
        text += table.render()
        text += "\nDigest (NSStoreModelVersionHashesDigest):   \(VersionHasher.digest(of: hashes))\n"
        text += "Checksum (NSStoreModelVersionChecksumKey):  \(model.versionChecksum)\n"
        return text
    }
}
