import Foundation

/// How to migrate a store from a source to a destination managed object model: a list of
/// entity mappings, each with its property mappings.
///
/// Load one made in Xcode with ``init(contentsOf:)`` (a compiled `.cdm`, or on every platform the
/// `.xcmappingmodel` source, since Linux has no mapping model compiler), or find the one made for
/// two models with ``init(from:forSourceModel:destinationModel:)``.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsmappingmodel>.
open class NSMappingModel: NSObject {
    /// The entity mappings, in the order a migration processes them.
    open var entityMappings: [NSEntityMapping]! = []

    /// The entity mappings keyed by name; the first wins when two share a name.
    open var entityMappingsByName: [String: NSEntityMapping] {
        var byName: [String: NSEntityMapping] = [:]
        for mapping in entityMappings ?? [] {
            guard let name = mapping.name, byName[name] == nil else { continue }
            byName[name] = mapping
        }
        return byName
    }

    /// Creates an empty mapping model.
    public override init() {
        super.init()
    }

    /// One line per entity mapping, for logs and the command-line tool.
    open override var description: String {
        (["NSMappingModel:"] + (entityMappings ?? []).map { "  " + $0.description }).joined(separator: "\n")
    }
}
