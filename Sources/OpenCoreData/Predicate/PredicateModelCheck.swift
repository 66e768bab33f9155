import Foundation

/// Checks a predicate's key paths against an entity before it runs.
///
/// A predicate string comes from outside the program; a key the entity does not have must be
/// reported as an error naming the entity and key, not discovered by a trap during evaluation.
package enum PredicateModelCheck {
    /// Throws an `NSError` (`NSCoreDataError`) naming the first key path the entity does not have.
    package static func validate(_ predicate: NSPredicate, entity: NSEntityDescription) throws {
        try check(predicate.node, entity: entity, variables: [:])
    }

    /// Throws for a key path (as in a sort descriptor) the entity does not have.
    package static func validate(keyPath: String, entity: NSEntityDescription) throws {
        try check(path: keyPath, from: entity)
    }

    private static func check(_ node: PredicateNode, entity: NSEntityDescription, variables: [String: NSEntityDescription]) throws {
        switch node {
        case .constant, .block:
            return
        case .comparison(let comparison):
            try check(comparison.left, entity: entity, variables: variables)
            try check(comparison.right, entity: entity, variables: variables)
        case .compound(_, let children):
            for child in children { try check(child, entity: entity, variables: variables) }
        }
    }

    private static func check(_ expression: ExpressionNode, entity: NSEntityDescription, variables: [String: NSEntityDescription]) throws {
        switch expression {
        case .keyPath(.evaluatedObject, let path):
            _ = try check(path: path, from: entity)
        case .keyPath(.variable(let name), let path):
            if let bound = variables[name] { _ = try check(path: path, from: bound) }
        case .keyPath(let operand, _):
            try check(operand, entity: entity, variables: variables)
        case .block(let block, let arguments):
            if let late = block.lateKeyPath, let base = arguments.first {
                // A key path made before the model was loaded: it must have a name by now.
                let name = late.required(for: "a fetch request's predicate")
                return try check(name == "self" ? base : PredicateParser.appendKey(name, to: base), entity: entity, variables: variables)
            }
            for argument in arguments { try check(argument, entity: entity, variables: variables) }
        case .function(_, let arguments), .aggregate(let arguments):
            for argument in arguments { try check(argument, entity: entity, variables: variables) }
        case .customFunction(let operand, _, let arguments):
            try check(operand, entity: entity, variables: variables)
            for argument in arguments { try check(argument, entity: entity, variables: variables) }
        case .set(_, let lhs, let rhs):
            try check(lhs, entity: entity, variables: variables)
            try check(rhs, entity: entity, variables: variables)
        case .subquery(let collection, let variable, let predicate):
            try check(collection, entity: entity, variables: variables)
            var inner = variables
            if let path = collection.selfKeyPath, let destination = try check(path: path, from: entity) {
                inner[variable] = destination
            } else if case .keyPath(.variable(let name), let path) = collection, let bound = variables[name],
                      let destination = try check(path: path, from: bound) {
                inner[variable] = destination
            }
            try check(predicate, entity: entity, variables: inner)
        case .conditional(let predicate, let whenTrue, let whenFalse):
            try check(predicate, entity: entity, variables: variables)
            try check(whenTrue, entity: entity, variables: variables)
            try check(whenFalse, entity: entity, variables: variables)
        case .constant, .evaluatedObject, .variable, .anyKey:
            return
        }
    }

    /// Walks a dotted key path through relationships; returns the entity the path ends on, if any.
    @discardableResult
    private static func check(path: String, from start: NSEntityDescription) throws -> NSEntityDescription? {
        var entity: NSEntityDescription? = start
        for component in path.split(separator: ".").map(String.init) {
            guard let current = entity else { return nil }  // past an attribute: values, not objects
            if component.hasPrefix("@") || component == "self" || component == "SELF" || component == "objectID" { continue }
            guard let property = current.propertiesByName[component] else {
                throw CoreDataError.make(NSCoreDataError, "keypath '\(path)' not found in entity '\(current.name ?? "?")': it has no property '\(component)'.",
                                         userInfo: [NSValidationKeyErrorKey: component])
            }
            entity = (property as? NSRelationshipDescription)?.destinationEntity
        }
        return entity
    }
}
