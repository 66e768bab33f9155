import Foundation

/// Archives a model the way Core Data keeps it in a store's `Z_MODELCACHE`: an `NSKeyedArchiver`
/// archive with Apple's class names and keys, then raw DEFLATE.
///
/// The shape is read off Apple-written stores (shared/docs/wave2-research.md §0.3,
/// docs/StoreFormat.md): the root `NSManagedObjectModel` holds its entities in an
/// `NSKnownKeysDictionary1`; every entity lists all its properties, inherited ones included as
/// their own objects whose `NSEntity` is the subentity; every entity and property carries
/// `NSRenamingIdentifier` (its name when the model sets none), properties carry `_P` and
/// attributes `NSFlagsKey`. `ModelArchiveReader` reads the result back to a model with the same
/// entities, properties and version hashes.
package enum ModelCacheArchiver {
    /// The keyed archive of `model`, a binary property list (before compression).
    package static func archive(_ model: NSManagedObjectModel) -> Data {
        let encoder = ModelCacheEncoder()
        let root = encoder.model(model)
        return encoder.writer.finish(root: root)
    }

    /// The `Z_MODELCACHE.Z_CONTENT` of `model`: its keyed archive, raw-DEFLATE compressed.
    package static func modelCache(_ model: NSManagedObjectModel) -> Data {
        Deflate.compress(archive(model))
    }
}

// MARK: - Encoder

/// One archiving pass: the writer and the model being archived.
///
/// Entities and properties are archived by identity through ``KeyedArchiveWriter``; the model
/// keeps every one of them alive for the whole pass, so their identities stay unique. Entities
/// are encoded one after the other from the model and referred to everywhere else by their
/// reserved UIDs, so the recursion stays shallow however the entities point at each other.
final class ModelCacheEncoder {
    let writer = KeyedArchiveWriter()

    static let modelClasses = ["NSManagedObjectModel", "NSObject"]
    static let entityClasses = ["NSEntityDescription", "NSObject"]
    /// The marker Apple's `NSKnownKeysDictionary1` archives for an unused slot.
    static let emptySlotToken = "__empty_slot_token_4c24_98dc_ac1e_b773__"

    // MARK: Model

    func model(_ model: NSManagedObjectModel) -> PropertyListValue {
        writer.object(for: model, classes: Self.modelClasses) { writer in
            var fields: [(String, PropertyListValue)] = []
            let entities = model.entities.filter { $0.name != nil }.sorted { $0.name!.utf8.lexicographicallyPrecedes($1.name!.utf8) }
            fields.append(("NSEntities", self.knownKeysDictionary(keys: entities.map { $0.name! }, values: entities.map { self.entity($0) })))
            fields.append(("NSFetchRequestTemplates", self.fetchRequestTemplates(model)))
            fields.append(("NSVersionIdentifiers", writer.array(self.sortedValues(model.versionIdentifiers),
                                                                 classes: KeyedArchiveWriter.Classes.set)))
            if !model.configurations.isEmpty {
                var names: [PropertyListValue] = []
                var members: [PropertyListValue] = []
                for name in model.configurations {
                    names.append(writer.string(name))
                    let entities = (model.entities(forConfigurationName: name) ?? []).map { writer.reference(for: $0) }
                    members.append(writer.array(entities, classes: KeyedArchiveWriter.Classes.set))
                }
                fields.append(("NSConfigurations", writer.dictionary(keys: names, values: members,
                                                                      classes: KeyedArchiveWriter.Classes.mutableDictionary)))
            }
            return fields
        }
    }

    /// Apple's `NSKnownKeysDictionary1`: the values in key order, the keys in a
    /// `NSKnownKeysMappingStrategy1`.
    private func knownKeysDictionary(keys: [String], values: [PropertyListValue]) -> PropertyListValue {
        let mapping = writer.object(classes: ["NSKnownKeysMappingStrategy1", "NSKnownKeysMappingStrategy", "NSObject"], fields: [
            ("version", .integer(1)),
            ("length", .integer(Int64(keys.count))),
            ("keys", writer.array(keys.map { writer.string($0) })),
        ])
        return writer.object(classes: ["NSKnownKeysDictionary1", "NSKnownKeysDictionary", "NSMutableDictionary", "NSDictionary", "NSObject"], fields: [
            ("version", .integer(1)),
            ("values", writer.array(values)),
            ("emptyToken", writer.string(Self.emptySlotToken)),
            ("searchMapping", mapping),
        ])
    }

    private func fetchRequestTemplates(_ model: NSManagedObjectModel) -> PropertyListValue {
        let templates = model.fetchRequestTemplatesByName.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        guard !templates.isEmpty else { return KeyedArchiveWriter.null }
        return writer.dictionary(keys: templates.map { writer.string($0.key) },
                                 values: templates.map { fetchRequest($0.value, model: model) },
                                 classes: KeyedArchiveWriter.Classes.mutableDictionary)
    }

    // MARK: Entities

    func entity(_ entity: NSEntityDescription) -> PropertyListValue {
        writer.object(for: entity, classes: Self.entityClasses) { writer in
            let name = entity.name ?? ""
            var fields: [(String, PropertyListValue)] = [
                ("NSEntityName", writer.string(name)),
                ("NSClassNameForEntity", writer.string(Self.className(of: entity))),
                ("NSSuperentity", entity.superentity.map { writer.reference(for: $0) } ?? KeyedArchiveWriter.null),
            ]
            let subentities = entity.subentities.filter { $0.name != nil }
            fields.append(("NSSubentities", writer.dictionary(keys: subentities.map { writer.string($0.name) },
                                                              values: subentities.map { writer.reference(for: $0) },
                                                              classes: KeyedArchiveWriter.Classes.mutableDictionary)))
            let properties = entity.properties
            fields.append(("NSProperties", writer.dictionary(keys: properties.map { writer.string($0.name) },
                                                             values: properties.map { self.property($0, in: entity) },
                                                             classes: KeyedArchiveWriter.Classes.mutableDictionary)))
            fields.append(("NSManagedObjectModel", entity.managedObjectModel.map { writer.reference(for: $0) } ?? KeyedArchiveWriter.null))
            fields.append(("NSUserInfo", self.userInfo(entity.userInfo)))
            fields.append(("NSVersionHashModifier", writer.string(entity.versionHashModifier)))
            fields.append(("NSRenamingIdentifier", writer.string(entity.renamingIdentifier ?? name)))
            if !entity.uniquenessConstraints.isEmpty {
                fields.append(("NSUniqueTuples", self.nameGroups(entity.uniquenessConstraints)))
            }
            // Framework 1044 and later leave both out when the entity has neither (866 wrote empty arrays).
            if !entity.indexes.isEmpty || !entity.compoundIndexes.isEmpty {
                fields.append(("NSFetchIndexDescriptions", writer.array(entity.indexes.map { self.fetchIndex($0, in: entity) },
                                                                        classes: KeyedArchiveWriter.Classes.mutableArray)))
                fields.append(("NSCompoundIndexes", self.nameGroups(entity.compoundIndexes)))
            }
            if entity.isAbstract { fields.append(("NSIsAbstract", .bool(true))) }
            return fields
        }
    }

    /// The class name Apple archives: nil (`$null`) for plain `NSManagedObject`.
    private static func className(of entity: NSEntityDescription) -> String? {
        guard let name = entity.managedObjectClassName, !name.isEmpty, name != "NSManagedObject" else { return nil }
        return name
    }

    /// Arrays of arrays of property names (uniqueness constraints, compound indexes).
    private func nameGroups(_ groups: [[Any]]) -> PropertyListValue {
        writer.array(groups.map { group in
            writer.array(group.map { element -> PropertyListValue in
                if let property = element as? NSPropertyDescription { return writer.string(property.name) }
                return writer.string(element as? String ?? "\(element)")
            }, classes: KeyedArchiveWriter.Classes.mutableArray)
        }, classes: KeyedArchiveWriter.Classes.mutableArray)
    }

    /// A `userInfo` dictionary; Apple archives an empty `NSDictionary` when there is none.
    func userInfo(_ info: [AnyHashable: Any]?) -> PropertyListValue {
        writer.foundationValue(info ?? [AnyHashable: Any]()) ?? writer.dictionary(keys: [], values: [])
    }

    /// Set elements in a stable order (strings first, by value), so equal models archive equally.
    func sortedValues(_ values: Set<AnyHashable>) -> [PropertyListValue] {
        values.sorted { "\($0.base)" < "\($1.base)" }.compactMap { writer.foundationValue($0.base) }
    }
}
