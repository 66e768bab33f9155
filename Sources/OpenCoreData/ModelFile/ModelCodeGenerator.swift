import Foundation

/// Writes the Swift that Xcode's model editor generates for a model's entities, adapted to
/// OpenCoreData: `@Managed` instead of `@NSManaged`, `import OpenCoreData`, no `@objc` names,
/// and relationship accessors that go through `mutableSetValue(forKey:)` and
/// `mutableOrderedSetValue(forKey:)` because there is no Objective-C runtime to supply them.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/generating-code>: per entity a
/// `<Class>+CoreDataClass.swift` (the subclass) and a `<Class>+CoreDataProperties.swift` (an
/// extension with `fetchRequest()`, the typed properties and the to-many accessors).
///
/// Used by the `ocd-modelgen` tool, which the build plugin and the command plugin run.
package struct ModelCodeGenerator {
    /// One generated Swift file.
    package struct File: Equatable, Sendable {
        /// The file name, e.g. `TodoEntity+CoreDataClass.swift`.
        package var name: String
        /// The Swift source.
        package var contents: String
    }

    /// Which entities get code and which files.
    package enum Selection: Equatable, Sendable {
        /// What each entity's Codegen setting asks for: both files for "Class Definition", the
        /// properties file for "Category/Extension", nothing for "Manual/None".
        case codegenSettings
        /// Both files for every named entity (all entities when nil), whatever its Codegen
        /// setting: Xcode's "Create NSManagedObject Subclass…".
        case manual(entities: [String]?)
    }

    /// The model the code is for.
    package let model: NSManagedObjectModel
    /// The model's file name (`Todo.xcdatamodeld`), quoted in the header of generated files.
    package let sourceName: String

    package init(model: NSManagedObjectModel, sourceName: String) {
        self.model = model
        self.sourceName = sourceName
    }

    // MARK: - Output

    /// The per-entity files, sorted by name.
    /// - Throws: ``ModelCodeGenerationError`` when an entity or property can't be written as Swift.
    package func files(for selection: Selection) throws -> [File] {
        let plan = try Plan(model: model, selection: selection)
        var files: [File] = []
        for entry in plan.entries {
            if entry.parts.contains(.classDefinition) {
                let name = "\(entry.className)+CoreDataClass.swift"
                files.append(File(name: name, contents: header(fileName: name) + "\n" + classDefinition(entry, plan: plan)))
            }
            if entry.parts.contains(.properties) {
                let name = "\(entry.className)+CoreDataProperties.swift"
                files.append(File(name: name, contents: header(fileName: name) + "\n" + (try properties(entry, plan: plan))))
            }
        }
        return files.sorted { $0.name < $1.name }
    }

    /// Everything ``files(for:)`` writes, as one file: the build plugin's output, whose name must
    /// be known before the model is read.
    package func combinedSource(for selection: Selection, fileName: String) throws -> String {
        let plan = try Plan(model: model, selection: selection)
        var text = header(fileName: fileName)
        for entry in plan.entries {
            if entry.parts.contains(.classDefinition) { text += "\n" + classDefinition(entry, plan: plan) }
            if entry.parts.contains(.properties) { text += "\n" + (try properties(entry, plan: plan)) }
        }
        return text
    }

    // MARK: - Planning

    /// The entities to write, sorted by class name, with the parts each gets.
    private struct Plan {
        enum Part { case classDefinition, properties }
        struct Entry {
            let entity: NSEntityDescription
            let className: String
            let parts: Set<Part>
        }
        let entries: [Entry]
        /// The entities code is written for, which get a class even without a class name of their own.
        let generated: Set<ObjectIdentifier>

        /// Chooses the entities and checks their class names first, so that every error names the
        /// entity or property at fault.
        init(model: NSManagedObjectModel, selection: Selection) throws {
            var chosen: [(NSEntityDescription, Set<Part>)] = []
            switch selection {
            case .codegenSettings:
                for entity in model.entities {
                    switch entity.codeGenerationType {
                    case "class": chosen.append((entity, [.classDefinition, .properties]))
                    case "category": chosen.append((entity, [.properties]))
                    default: continue
                    }
                }
            case .manual(let names):
                let byName = model.entitiesByName
                for name in names ?? model.entities.compactMap(\.name) {
                    guard let entity = byName[name] else { throw ModelCodeGenerationError.unknownEntity(name) }
                    if !chosen.contains(where: { $0.0 === entity }) { chosen.append((entity, [.classDefinition, .properties])) }
                }
            }
            let generated = Set(chosen.map { ObjectIdentifier($0.0) })
            var owners: [String: String] = [:]
            var entries: [Entry] = []
            for (entity, parts) in chosen {
                let className = try ClassNaming.className(of: entity, generated: generated)
                let entityName = entity.name ?? ""
                if let other = owners[className] {
                    throw ModelCodeGenerationError.duplicateClass(className, entities: [other, entityName].sorted())
                }
                owners[className] = entityName
                if let superentity = entity.superentity { _ = try ClassNaming.className(of: superentity, generated: generated) }
                entries.append(Entry(entity: entity, className: className, parts: parts))
            }
            self.entries = entries.sorted { $0.className < $1.className }
            self.generated = generated
        }
    }

    // MARK: - Writing

    private func header(fileName: String) -> String {
        """
        //
        //  \(fileName)
        //
        //  This file was automatically generated from \(sourceName) and should not be edited.
        //

        import OpenCoreData

        """
    }

    /// `public class Todo: NSManagedObject {}` (Xcode's `@objc(Todo)` has no meaning without the
    /// Objective-C runtime).
    private func classDefinition(_ entry: Plan.Entry, plan: Plan) -> String {
        // `Plan` checked the superentity's class name.
        let superclass = entry.entity.superentity.flatMap { try? ClassNaming.className(of: $0, generated: plan.generated) } ?? "NSManagedObject"
        return """
            public class \(ClassNaming.escaped(entry.className)): \(ClassNaming.escaped(superclass)) {

            }

            """
    }

    /// The extension with `fetchRequest()`, the `@Managed` properties, the to-many accessors and
    /// the `Identifiable` conformance.
    private func properties(_ entry: Plan.Entry, plan: Plan) throws -> String {
        let className = ClassNaming.escaped(entry.className)
        let entityName = entry.entity.name ?? ""
        let own = entry.entity.ownProperties
        let attributes = own.compactMap { $0 as? NSAttributeDescription }.sorted { $0.name < $1.name }
        let relationships = own.compactMap { $0 as? NSRelationshipDescription }.sorted { $0.name < $1.name }

        var text = """

            extension \(className) {

                @nonobjc public class func fetchRequest() -> NSFetchRequest<\(className)> {
                    return NSFetchRequest<\(className)>(entityName: \(swiftStringLiteral(entityName)))
                }


            """
        for attribute in attributes {
            let type = try PropertyTyping.swiftType(of: attribute, entity: entityName)
            text += "    @Managed public var \(try propertyName(attribute, entity: entityName)): \(type)\n"
        }
        for relationship in relationships {
            let type = try PropertyTyping.swiftType(of: relationship, entity: entityName, generated: plan.generated)
            text += "    @Managed public var \(try propertyName(relationship, entity: entityName)): \(type)\n"
        }
        text += "\n}\n"

        for relationship in relationships where relationship.isToMany {
            text += try accessors(for: relationship, className: className, entity: entityName, plan: plan)
        }
        // A subclass inherits its parent's conformance; repeating it would not compile.
        if entry.entity.superentity == nil {
            text += """

                extension \(className) : Identifiable {

                }

                """
        }
        return text
    }

    /// Xcode's "Generated accessors" for a to-many relationship, as calls on the mutable
    /// (ordered) set proxy, which maintains the inverse and records the change.
    private func accessors(for relationship: NSRelationshipDescription, className: String, entity: String, plan: Plan) throws -> String {
        let key = relationship.name
        let suffix = ClassNaming.capitalizedFirst(key)
        let destination = ClassNaming.escaped(try PropertyTyping.destinationClassName(of: relationship, entity: entity, generated: plan.generated))
        let keyLiteral = swiftStringLiteral(key)
        var text = """

            // MARK: Generated accessors for \(key)
            extension \(className) {


            """
        func method(_ signature: String, _ body: [String]) {
            text += "    public func \(signature) {\n"
            for line in body { text += "        \(line)\n" }
            text += "    }\n\n"
        }
        if relationship.isOrdered {
            let proxy = "_orderedRelationshipEditor(forKey: \(keyLiteral))"
            method("insertInto\(suffix)(_ value: \(destination), at idx: Int)", ["\(proxy).insert(value, at: idx)"])
            method("removeFrom\(suffix)(at idx: Int)", ["\(proxy).removeObject(at: idx)"])
            method("insertInto\(suffix)(_ values: [\(destination)], at indexes: NSIndexSet)", ["\(proxy).insert(values, at: indexes as IndexSet)"])
            method("removeFrom\(suffix)(at indexes: NSIndexSet)", ["\(proxy).removeObjects(at: indexes as IndexSet)"])
            method("replace\(suffix)(at idx: Int, with value: \(destination))", ["\(proxy).replaceObject(at: idx, with: value)"])
            method("replace\(suffix)(at indexes: NSIndexSet, with values: [\(destination)])", ["\(proxy).replaceObjects(at: indexes as IndexSet, with: values)"])
            method("addTo\(suffix)(_ value: \(destination))", ["\(proxy).add(value)"])
            method("removeFrom\(suffix)(_ value: \(destination))", ["\(proxy).remove(value)"])
            method("addTo\(suffix)(_ values: NSOrderedSet)", ["\(proxy).addObjects(from: values.array)"])
            method("removeFrom\(suffix)(_ values: NSOrderedSet)", ["\(proxy).removeObjects(in: values.array)"])
        } else {
            let proxy = "mutableSetValue(forKey: \(keyLiteral))"
            method("addTo\(suffix)(_ value: \(destination))", ["\(proxy).add(value)"])
            method("removeFrom\(suffix)(_ value: \(destination))", ["\(proxy).remove(value)"])
            method("addTo\(suffix)(_ values: NSSet)", ["\(proxy).addObjects(from: values.allObjects)"])
            method("removeFrom\(suffix)(_ values: NSSet)", [
                "let objects = \(proxy)",
                "for value in values.allObjects { objects.remove(value) }",
            ])
        }
        text += "}\n"
        return text
    }

    private func propertyName(_ property: NSPropertyDescription, entity: String) throws -> String {
        let name = property.name
        guard ClassNaming.isIdentifier(name) else {
            throw ModelCodeGenerationError.invalidName(name, entity: entity, property: name, reason: "is not a Swift identifier")
        }
        if ClassNaming.managedObjectMembers.contains(name) {
            throw ModelCodeGenerationError.invalidName(name, entity: entity, property: name, reason: "is already a member of NSManagedObject")
        }
        return ClassNaming.escaped(name)
    }
}

/// A Swift string literal for any text (quotes, backslashes and control characters escaped).
func swiftStringLiteral(_ text: String) -> String {
    var literal = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": literal += "\\\""
        case "\\": literal += "\\\\"
        case "\n": literal += "\\n"
        case "\r": literal += "\\r"
        case "\t": literal += "\\t"
        case _ where scalar.value < 0x20 || scalar.value == 0x7F:
            literal += "\\u{\(String(scalar.value, radix: 16))}"
        default: literal.unicodeScalars.append(scalar)
        }
    }
    return literal + "\""
}
