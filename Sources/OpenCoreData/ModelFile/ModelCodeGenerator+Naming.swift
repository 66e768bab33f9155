import Foundation

/// Why a model can't be written as Swift; the description names the entity and property.
package struct ModelCodeGenerationError: Error, Equatable, CustomStringConvertible {
    /// The entity at fault, if any.
    package let entity: String?
    /// The property at fault, if any.
    package let property: String?
    /// What is wrong.
    package let reason: String

    package var description: String {
        var place = ""
        if let entity { place += "entity '\(entity)'" }
        if let property { place += (place.isEmpty ? "" : ", ") + "property '\(property)'" }
        return place.isEmpty ? reason : "\(place): \(reason)"
    }

    static func unknownEntity(_ name: String) -> Self {
        Self(entity: name, property: nil, reason: "no such entity in the model")
    }

    static func duplicateClass(_ className: String, entities: [String]) -> Self {
        Self(entity: entities.first, property: nil,
             reason: "entities \(entities.map { "'\($0)'" }.joined(separator: " and ")) would both generate class '\(className)'")
    }

    static func invalidName(_ name: String, entity: String?, property: String?, reason: String) -> Self {
        Self(entity: entity, property: property, reason: "'\(name)' \(reason)")
    }
}

// MARK: - Names

/// How entity and property names become Swift names.
enum ClassNaming {
    /// The Swift class of an entity, as Xcode names it: `representedClassName` without a module
    /// prefix (`MyApp.Todo` and `.Todo` are `Todo`); for an entity without a class of its own, the
    /// entity name when code is generated for it (`generated`, or a Codegen setting), else
    /// `NSManagedObject`.
    static func className(of entity: NSEntityDescription, generated: Set<ObjectIdentifier> = []) throws -> String {
        var name = entity.managedObjectClassName ?? ""
        if let dot = name.lastIndex(of: ".") { name = String(name[name.index(after: dot)...]) }
        if name.isEmpty || name == "NSManagedObject" {
            guard entity.codeGenerationType != nil || generated.contains(ObjectIdentifier(entity)) else { return "NSManagedObject" }
            name = entity.name ?? ""
        }
        guard isIdentifier(name) else {
            throw ModelCodeGenerationError.invalidName(name, entity: entity.name, property: nil, reason: "is not a valid Swift class name")
        }
        return name
    }

    /// Whether a name is a plain Swift identifier (ASCII letters, digits and `_`, not starting with a digit).
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCIILetterOrDigit || $0 == "_" }
    }

    /// A name in backticks when it is a Swift keyword.
    static func escaped(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    /// `tags` → `Tags`, for accessor names (`addToTags`).
    static func capitalizedFirst(_ name: String) -> String {
        name.prefix(1).uppercased() + name.dropFirst()
    }

    /// Keywords that can't be a property or class name without backticks.
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init",
        "inout", "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public",
        "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case", "catch",
        "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat",
        "return", "throw", "switch", "where", "while", "Any", "as", "await", "false", "is", "nil", "self",
        "Self", "super", "throws", "true", "try", "Type", "Protocol",
    ]

    /// Members of `NSManagedObject` and `NSObject` a generated property would collide with (Apple's
    /// model editor rejects these names too).
    static let managedObjectMembers: Set<String> = [
        "entity", "objectID", "managedObjectContext", "isInserted", "isUpdated", "isDeleted", "hasChanges",
        "hasPersistentChangedValues", "isFault", "faultingState", "description", "debugDescription",
        "hash", "hashValue", "className", "changedValues", "committedValues", "self",
    ]
}

extension Unicode.Scalar {
    fileprivate var isASCIILetterOrDigit: Bool {
        ("a"..."z").contains(self) || ("A"..."Z").contains(self) || ("0"..."9").contains(self)
    }
}

// MARK: - Types

/// The Swift type Xcode gives each property.
enum PropertyTyping {
    /// An attribute's type: a Swift scalar where `usesScalarValueType` is set on a number or
    /// Boolean, else an optional of the value class (`NSNumber?`, `String?`, `Date?`, …).
    static func swiftType(of attribute: NSAttributeDescription, entity: String) throws -> String {
        let scalar = attribute.usesScalarValueType
        switch attribute.attributeType {
        case .integer16AttributeType: return scalar ? "Int16" : "NSNumber?"
        case .integer32AttributeType: return scalar ? "Int32" : "NSNumber?"
        case .integer64AttributeType: return scalar ? "Int64" : "NSNumber?"
        case .doubleAttributeType: return scalar ? "Double" : "NSNumber?"
        case .floatAttributeType: return scalar ? "Float" : "NSNumber?"
        case .booleanAttributeType: return scalar ? "Bool" : "NSNumber?"
        case .decimalAttributeType: return "NSDecimalNumber?"
        case .stringAttributeType: return "String?"
        case .dateAttributeType: return "Date?"
        case .binaryDataAttributeType: return "Data?"
        case .UUIDAttributeType: return "UUID?"
        case .URIAttributeType: return "URL?"
        case .objectIDAttributeType: return "NSManagedObjectID?"
        case .compositeAttributeType: return "[String: Any]?"
        case .transformableAttributeType:
            guard let custom = attribute.attributeValueClassName, !custom.isEmpty else { return "NSObject?" }
            var type = custom.trimmingCharacters(in: .whitespaces)
            while type.hasSuffix("?") || type.hasSuffix("!") { type.removeLast() }
            guard isTypeExpression(type) else {
                throw ModelCodeGenerationError.invalidName(custom, entity: entity, property: attribute.name, reason: "is not a Swift type (custom class of a transformable)")
            }
            return "\(type)?"
        case .undefinedAttributeType: return "NSObject?"
        }
    }

    /// A relationship's type: the destination's class for a to-one, `NSSet?` or `NSOrderedSet?` for a to-many.
    static func swiftType(of relationship: NSRelationshipDescription, entity: String, generated: Set<ObjectIdentifier>) throws -> String {
        if relationship.isToMany { return relationship.isOrdered ? "NSOrderedSet?" : "NSSet?" }
        return ClassNaming.escaped(try destinationClassName(of: relationship, entity: entity, generated: generated)) + "?"
    }

    static func destinationClassName(of relationship: NSRelationshipDescription, entity: String, generated: Set<ObjectIdentifier>) throws -> String {
        guard let destination = relationship.destinationEntity else {
            throw ModelCodeGenerationError(entity: entity, property: relationship.name, reason: "the relationship has no destination entity")
        }
        return try ClassNaming.className(of: destination, generated: generated)
    }

    /// Whether text looks like a Swift type (`[String]`, `NSArray`, `[String: Int]`, `MyModule.Color`),
    /// so that a custom class name can't inject code into the generated file.
    static func isTypeExpression(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first != ".", !("0"..."9").contains(first) else { return false }
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.<>[]:, ?".unicodeScalars)
        var depth = 0
        for scalar in text.unicodeScalars {
            guard allowed.contains(scalar) else { return false }
            if scalar == "[" || scalar == "<" { depth += 1 }
            if scalar == "]" || scalar == ">" { depth -= 1 }
            if depth < 0 { return false }
        }
        return depth == 0
    }
}

extension NSEntityDescription {
    /// The model editor's name of the entity's Codegen setting, when code is generated for it.
    package var codegenSettingName: String? {
        switch codeGenerationType {
        case "class": "\"Class Definition\""
        case "category": "\"Category/Extension\""
        default: nil
        }
    }
}
