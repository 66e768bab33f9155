import Foundation

/// The `userInfo` key of the entity a model file error concerns.
package let OCDModelEntityErrorKey = "OCDModelEntityName"
/// The `userInfo` key of the property a model file error concerns.
package let OCDModelPropertyErrorKey = "OCDModelPropertyName"
/// The `userInfo` key of the 1-based line of an XML model file error.
package let OCDModelLineErrorKey = "OCDModelLine"

/// Where in a model file something is: the file, and optionally an entity, a property and a line.
package struct ModelFileLocation: Sendable {
    package var url: URL?
    /// What the data is when it has no file, e.g. "the store's Z_MODELCACHE".
    package var source: String?
    package var entity: String?
    package var property: String?
    package var line: Int?

    package init(url: URL?, source: String? = nil, entity: String? = nil, property: String? = nil, line: Int? = nil) {
        self.url = url
        self.source = source
        self.entity = entity
        self.property = property
        self.line = line
    }

    /// The same place inside an entity.
    package func entity(_ name: String?) -> ModelFileLocation {
        var copy = self
        copy.entity = name
        copy.property = nil
        return copy
    }

    /// The same place at a property of the current entity.
    package func property(_ name: String?) -> ModelFileLocation {
        var copy = self
        copy.property = name
        return copy
    }

    /// The same place at a line.
    package func line(_ line: Int?) -> ModelFileLocation {
        var copy = self
        copy.line = line ?? self.line
        return copy
    }

    /// "file 'X.xcdatamodel/contents', line 12, entity 'Car', property 'owner'".
    package var text: String {
        var parts: [String] = []
        parts.append(url.map { "file '\($0.path)'" } ?? source ?? "model data")
        if let line { parts.append("line \(line)") }
        if let entity { parts.append("entity '\(entity)'") }
        if let property { parts.append("property '\(property)'") }
        return parts.joined(separator: ", ")
    }
}

/// Builds the `NSError`s model loading throws: `NSCocoaErrorDomain`, Apple's codes, and a
/// description that names the file, entity and property.
package enum ModelFileError {
    /// The file is missing (`NSFileReadNoSuchFileError`, 260).
    package static func missing(_ location: ModelFileLocation, _ reason: String) -> NSError {
        make(NSFileReadNoSuchFileError, location, reason)
    }

    /// The file is unreadable or not in the expected format (`NSFileReadCorruptFileError`, 259).
    package static func corrupt(_ location: ModelFileLocation, _ reason: String, underlying: (any Error)? = nil) -> NSError {
        make(NSFileReadCorruptFileError, location, reason, underlying: underlying)
    }

    /// The file is well-formed but describes an inconsistent model (`NSCoreDataError`, 134060).
    package static func invalidModel(_ location: ModelFileLocation, _ reason: String) -> NSError {
        make(NSCoreDataError, location, reason)
    }

    /// The file could not be read (`NSFileReadUnknownError`, 256).
    package static func unreadable(_ location: ModelFileLocation, underlying: any Error) -> NSError {
        make(NSFileReadUnknownError, location, "the file could not be read: \(underlying.localizedDescription)", underlying: underlying)
    }

    private static func make(_ code: Int, _ location: ModelFileLocation, _ reason: String, underlying: (any Error)? = nil) -> NSError {
        var info: [String: Any] = [
            NSLocalizedDescriptionKey: "Can't load the Core Data model: \(location.text): \(reason).",
            NSLocalizedFailureReasonErrorKey: reason,
        ]
        if let url = location.url {
            info[NSFilePathErrorKey] = url.path
            info[NSURLErrorKey] = url
        }
        if let entity = location.entity { info[OCDModelEntityErrorKey] = entity }
        if let property = location.property { info[OCDModelPropertyErrorKey] = property }
        if let line = location.line { info[OCDModelLineErrorKey] = line }
        if let underlying { info[NSUnderlyingErrorKey] = underlying as NSError }
        return NSError(domain: NSCocoaErrorDomain, code: code, userInfo: info)
    }
}
