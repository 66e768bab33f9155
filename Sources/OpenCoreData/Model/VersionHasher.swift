import Foundation

/// Apple's model version hashes, reconstructed black-box from Apple-written stores.
///
/// The byte layout is shared/docs/coredata-formats.md §4; docs/ModelFiles.md lists the results
/// per fixture. Verified against every Apple store and compiled model in shared/fixtures: names,
/// optional/transient flags, attribute type, preserve-after-deletion, relationship destination
/// and inverse names and counts, abstractness, superentity hash, uniqueness constraints.
/// `versionHashModifier`, `isOrdered` and external binary storage are appended only when set, in
/// a layout no fixture confirms; they are isolated in `unverifiedSuffix`. Not reproduced yet:
/// the CoreDataPlus `Book` entity (derived attribute, Decimal, defaulted transformable, validated
/// string, bounded to-many), where one of those properties hashes differently.
package enum VersionHasher {
    /// The version hash of a property.
    package static func hash(of property: NSPropertyDescription) -> Data {
        if let composite = property as? NSCompositeAttributeDescription { return hash(of: composite, depth: 0) }
        var base = Data(property.name.utf8)
        base.append(property.isOptional ? 1 : 0)
        base.append(property.isTransient ? 1 : 0)
        var data = SHA2.sha256(base)
        if let attribute = property as? NSAttributeDescription {
            appendLittleEndian(UInt32(truncatingIfNeeded: attribute.attributeType.rawValue), to: &data)
            if attribute.preservesValueInHistoryOnDeletion { data.append(1) }
        } else if let relationship = property as? NSRelationshipDescription {
            data.append(contentsOf: (relationship.destinationEntity?.name ?? relationship.destinationEntityName ?? "").utf8)
            data.append(contentsOf: (relationship.inverseRelationship?.name ?? relationship.inverseRelationshipName ?? "").utf8)
            appendLittleEndian(UInt32(truncatingIfNeeded: relationship.maxCount), to: &data)
            appendLittleEndian(UInt32(truncatingIfNeeded: relationship.minCount), to: &data)
        }
        data.append(unverifiedSuffix(of: property))
        return SHA2.sha256(data)
    }

    /// A composite's hash: SHA-256 over its elements' hashes, in element order. The composite's
    /// own name, optionality and type do not enter it. Found black-box against the one Apple
    /// vector (§5 of wave3-research: `Ingredient`, whose composite `unit` has one element), which
    /// this reproduces; the order of several elements is not pinned down (docs/ModelFiles.md).
    private static func hash(of composite: NSCompositeAttributeDescription, depth: Int) -> Data {
        var data = Data()
        for element in composite.elements {
            if let nested = element as? NSCompositeAttributeDescription {
                // Model readers refuse deeper nesting; the bound keeps a hand-made cycle finite.
                if depth < NSCompositeAttributeDescription.maximumDepth { data.append(hash(of: nested, depth: depth + 1)) }
            } else {
                data.append(hash(of: element))
            }
        }
        return SHA2.sha256(data)
    }

    /// Hashes already computed, so that a model's hashes cost one hash per entity and property:
    /// an entity's hash covers its superentity's hash and every inherited property, and
    /// recomputing those at each level of an inheritance chain was cubic in its depth.
    package struct Memo {
        var entities: [ObjectIdentifier: Data] = [:]
        var properties: [ObjectIdentifier: Data] = [:]
        /// How many entity and property hashes were computed (not found in the memo).
        package private(set) var computed = 0

        package init() {}

        mutating func property(_ property: NSPropertyDescription) -> Data {
            if let known = properties[ObjectIdentifier(property)] { return known }
            let hash = VersionHasher.hash(of: property)
            properties[ObjectIdentifier(property)] = hash
            computed += 1
            return hash
        }

        mutating func noteEntity(_ entity: NSEntityDescription, _ hash: Data) {
            entities[ObjectIdentifier(entity)] = hash
            computed += 1
        }
    }

    /// The version hash of an entity.
    package static func hash(of entity: NSEntityDescription) -> Data {
        var memo = Memo()
        return hash(of: entity, memo: &memo)
    }

    /// Every named entity's version hash, sharing one memo across the model.
    package static func hashes(of entities: [NSEntityDescription], memo: inout Memo) -> [String: Data] {
        var hashes: [String: Data] = [:]
        for entity in entities { if let name = entity.name { hashes[name] = hash(of: entity, memo: &memo) } }
        return hashes
    }

    /// The version hash of an entity, its ancestors' hashes taken from (and added to) `memo`.
    package static func hash(of entity: NSEntityDescription, memo: inout Memo) -> Data {
        if let known = memo.entities[ObjectIdentifier(entity)] { return known }
        // Root-first along the chain, iteratively: no recursion however deep the chain.
        var chain: [NSEntityDescription] = []
        var current: NSEntityDescription? = entity
        var superHash: Data?
        while let next = current {
            if let known = memo.entities[ObjectIdentifier(next)] { superHash = known; break }
            chain.append(next)
            current = next.superentity
        }
        var inherited: [NSPropertyDescription] = superHash == nil ? [] : (current?.properties ?? [])
        for level in chain.reversed() {
            inherited += level.ownProperties
            let hash = ownHash(of: level, superHash: superHash, properties: inherited, memo: &memo)
            memo.noteEntity(level, hash)
            superHash = hash
        }
        return superHash ?? Data()
    }

    private static func ownHash(of entity: NSEntityDescription, superHash: Data?, properties: [NSPropertyDescription],
                                memo: inout Memo) -> Data {
        var data = Data((entity.name ?? "").utf8)
        data.append(entity.isAbstract ? 1 : 0)
        if let superHash { data.append(superHash) }
        let stored = properties
            .filter { $0.isStored }
            .sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        for property in stored { data.append(memo.property(property)) }
        for constraint in entity.uniquenessConstraints {
            let names = constraint.map { element -> String in
                if let property = element as? NSPropertyDescription { return property.name }
                return element as? String ?? "\(element)"
            }
            data.append(contentsOf: names.joined(separator: ".").utf8)
        }
        if let modifier = entity.versionHashModifier { data.append(contentsOf: modifier.utf8) }
        return SHA2.sha256(data)
    }

    /// `NSStoreModelVersionHashesDigest`: base64 of SHA-512 over (name ‖ hash) sorted by name.
    package static func digest(of hashes: [String: Data]) -> String {
        var data = Data()
        for name in hashes.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            data.append(contentsOf: name.utf8)
            data.append(hashes[name]!)
        }
        return SHA2.sha512(data).base64EncodedString()
    }

    /// `NSStoreModelVersionChecksumKey`: base64 of SHA-256 over the hashes sorted by entity name.
    package static func checksum(of hashes: [String: Data]) -> String {
        var data = Data()
        for name in hashes.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) { data.append(hashes[name]!) }
        return SHA2.sha256(data).base64EncodedString()
    }

    /// Inputs Apple documents as part of the hash but no fixture pins down; empty unless set.
    private static func unverifiedSuffix(of property: NSPropertyDescription) -> Data {
        var data = Data()
        if let relationship = property as? NSRelationshipDescription, relationship.isOrdered { data.append(1) }
        if let attribute = property as? NSAttributeDescription, attribute.allowsExternalBinaryDataStorage { data.append(1) }
        if let modifier = property.versionHashModifier { data.append(contentsOf: modifier.utf8) }
        return data
    }

    private static func appendLittleEndian(_ value: UInt32, to data: inout Data) {
        withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }
}
