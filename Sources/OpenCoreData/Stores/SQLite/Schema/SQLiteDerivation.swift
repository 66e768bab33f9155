import Foundation

/// How the SQLite store computes one derived attribute (`NSDerivedAttributeDescription`) in SQL.
///
/// Apple's SQLite store keeps a derived attribute in an ordinary column that triggers update
/// whenever the values it is derived from change (formats.md §3.5; the fixture shows the
/// `pages.@count` triggers). The expressions Apple's SQL store accepts are listed on
/// <https://developer.apple.com/documentation/coredata/nsderivedattributedescription/derivationexpression>:
/// a key path (also through a to-one relationship), such a key path wrapped in `canonical:`,
/// `lowercase:` or `uppercase:`, a to-many key path with `@count` or `@sum`, and `now()`.
/// Anything else makes adding the store fail (`SQLiteDerivation.unsupported`).
struct SQLiteDerivation {
    /// What the value is computed from.
    enum Kind {
        /// `relationship.@count` of a to-many relationship.
        case count(NSRelationshipDescription)
        /// `relationship.@sum.attribute` of a to-many relationship.
        case sum(NSRelationshipDescription, NSAttributeDescription)
        /// `attribute` or `toOne.attribute`, optionally through a string function.
        case value(via: NSRelationshipDescription?, NSAttributeDescription, StringTransform?)
        /// `now()`: the time of the save that wrote the row.
        case now
    }

    /// The string functions a derived key path may be wrapped in.
    enum StringTransform: String {
        case canonical = "canonical:"
        case lowercase = "lowercase:"
        case uppercase = "uppercase:"

        /// The registered SQL function computing it as memory does (`FunctionEvaluator`).
        var sqlFunction: String { SQLiteFunctions.sqlName(ofBuiltin: rawValue) }
    }

    /// The derived attribute.
    let attribute: NSDerivedAttributeDescription
    /// The entity that declares it (its rows carry the column).
    let entity: NSEntityDescription
    let kind: Kind

    // MARK: - Analysis

    /// The derivations of every derived attribute the schema stores.
    ///
    /// - Throws: `NSPersistentStoreIncompatibleSchemaError` naming the entity, attribute and
    ///   expression of the first derived attribute the SQL store cannot compute, as Apple fails
    ///   adding such a store ("the add fails and throws an error"; Apple documents no code).
    static func all(in schema: SQLStoreSchema) throws -> [SQLiteDerivation] {
        var result: [SQLiteDerivation] = []
        for entity in schema.entities {
            for property in entity.ownProperties {
                guard let derived = property as? NSDerivedAttributeDescription, !derived.isTransient else { continue }
                result.append(try SQLiteDerivation(derived, of: entity))
            }
        }
        return result
    }

    init(_ attribute: NSDerivedAttributeDescription, of entity: NSEntityDescription) throws {
        self.attribute = attribute
        self.entity = entity
        guard let expression = attribute.derivationExpression else {
            throw Self.unsupported(attribute, entity, "it has no derivation expression")
        }
        self.kind = try Self.kind(of: expression.node, attribute, entity)
    }

    private static func kind(of node: ExpressionNode, _ attribute: NSDerivedAttributeDescription, _ entity: NSEntityDescription) throws -> Kind {
        switch node {
        case .function("now", let arguments) where arguments.isEmpty:
            guard attribute.attributeType == .dateAttributeType else {
                throw unsupported(attribute, entity, "now() derives a date, but the attribute is of type \(attribute.attributeType.xmlName)")
            }
            return .now
        case .function(let name, let arguments) where (name == "count:" || name == "sum:") && arguments.count == 1:
            // Apple's compiled models archive `pages.@count` as `count:(pages)` (SampleModel2).
            guard let path = arguments[0].selfKeyPath else {
                throw unsupported(attribute, entity, "\(name) applies to a key path")
            }
            var components = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            components.insert(name == "count:" ? "@count" : "@sum", at: 1)
            return try aggregate(components, attribute, entity)
        case .function(let name, let arguments):
            guard let transform = StringTransform(rawValue: name), arguments.count == 1, let path = arguments[0].selfKeyPath else {
                throw unsupported(attribute, entity, "the function \(name) is not one the SQL store derives (canonical:, lowercase:, uppercase: of a key path, or now())")
            }
            let (via, source) = try keyPathValue(path, attribute, entity)
            guard source.attributeType == .stringAttributeType else {
                throw unsupported(attribute, entity, "\(name) applies to a string attribute, and '\(path)' is not one")
            }
            return .value(via: via, source, transform)
        case .keyPath(.evaluatedObject, let path):
            let components = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            if components.count >= 2, components[1].hasPrefix("@") {
                return try aggregate(components, attribute, entity)
            }
            let (via, source) = try keyPathValue(path, attribute, entity)
            return .value(via: via, source, nil)
        default:
            throw unsupported(attribute, entity, "the expression is neither a key path nor canonical:, lowercase:, uppercase: or now()")
        }
    }

    /// `toMany.@count` or `toMany.@sum.attribute`.
    private static func aggregate(_ components: [String], _ attribute: NSDerivedAttributeDescription, _ entity: NSEntityDescription) throws -> Kind {
        let path = components.joined(separator: ".")
        guard let relationship = entity.relationshipsByName[components[0]], relationship.isToMany, !relationship.isTransient,
              let destination = relationship.destinationEntity else {
            throw unsupported(attribute, entity, "'\(components[0])' in '\(path)' is not a stored to-many relationship of \(entity.name ?? "?")")
        }
        switch (components[1], components.count) {
        case ("@count", 2):
            return .count(relationship)
        case ("@sum", 3):
            guard let summed = destination.attributesByName[components[2]], !summed.isTransient, summed.attributeType.isNumeric else {
                throw unsupported(attribute, entity, "'\(components[2])' in '\(path)' is not a stored numeric attribute of \(destination.name ?? "?")")
            }
            return .sum(relationship, summed)
        default:
            throw unsupported(attribute, entity, "'\(path)' uses an operator the SQL store does not derive (only toMany.@count and toMany.@sum.attribute)")
        }
    }

    /// `attribute` or `toOne.attribute`: the relationship followed (if any) and the attribute read.
    private static func keyPathValue(_ path: String, _ attribute: NSDerivedAttributeDescription,
                                     _ entity: NSEntityDescription) throws -> (NSRelationshipDescription?, NSAttributeDescription) {
        let components = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        switch components.count {
        case 1:
            guard let source = entity.attributesByName[components[0]], !source.isTransient, source !== attribute else {
                throw unsupported(attribute, entity, "'\(path)' is not another stored attribute of \(entity.name ?? "?")")
            }
            return (nil, source)
        case 2:
            guard let relationship = entity.relationshipsByName[components[0]], !relationship.isToMany, !relationship.isTransient,
                  let destination = relationship.destinationEntity else {
                throw unsupported(attribute, entity, "'\(components[0])' in '\(path)' is not a stored to-one relationship of \(entity.name ?? "?")")
            }
            guard let source = destination.attributesByName[components[1]], !source.isTransient else {
                throw unsupported(attribute, entity, "'\(components[1])' in '\(path)' is not a stored attribute of \(destination.name ?? "?")")
            }
            return (relationship, source)
        default:
            throw unsupported(attribute, entity, "the key path '\(path)' goes through more than one relationship")
        }
    }

    /// The error of a derived attribute the SQL store cannot compute.
    static func unsupported(_ attribute: NSAttributeDescription, _ entity: NSEntityDescription, _ reason: String) -> NSError {
        let expression = (attribute as? NSDerivedAttributeDescription)?.derivationExpression.map { "\($0)" } ?? "nil"
        return CoreDataError.make(NSPersistentStoreIncompatibleSchemaError,
                                  "The derived attribute '\(attribute.name)' of entity '\(entity.name ?? "?")' (\(expression)) is not supported by the SQLite store: \(reason).",
                                  userInfo: ["entity": entity.name ?? "", "property": attribute.name, "derivationExpression": expression])
    }
}
