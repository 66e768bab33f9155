import Foundation

/// Checks a predicate's key paths against an entity before it runs.
///
/// A predicate string comes from outside the program; a key the entity does not have must be
/// reported as an error naming the entity and key, not discovered by a trap during evaluation
/// (Apple raises `NSInvalidArgumentException` "keypath … not found in entity …"; a fetch
/// throws it as an `NSError`). The check follows which entities each expression can yield —
/// `SELF`, key paths through relationships, `SUBQUERY` variables and its inner `SELF`,
/// subscripts, `TERNARY`, set operations, aggregates and constant objects — so every key that
/// will be read from a managed object is one its entity has. The walk is linear in the size of
/// the predicate and does no per-row work.
package enum PredicateModelCheck {
    /// The entities whose managed objects a value may hold (alone or in collections); empty
    /// when it holds none, so reading keys from it cannot reach a managed object.
    private typealias Reach = [NSEntityDescription]

    /// Throws an `NSError` (`NSCoreDataError`) naming the first key path the entity does not have,
    /// or one for a predicate deeper than `PredicateDepth.maximumDepth`.
    package static func validate(_ predicate: NSPredicate, entity: NSEntityDescription) throws {
        // Programmatic predicates are not depth-checked by the parser; refuse before recursing.
        guard PredicateDepth.depth(of: predicate.node) <= PredicateDepth.maximumDepth else {
            throw CoreDataError.make(NSCoreDataError, "The fetch request's predicate is nested deeper than \(PredicateDepth.maximumDepth) levels (each operator of a chain such as a + b + c, and each subscript, is a level).")
        }
        try check(predicate.node, reach: [entity], variables: [:])
    }

    /// Throws for a key path (as in a sort descriptor) the entity does not have.
    package static func validate(keyPath: String, entity: NSEntityDescription) throws {
        _ = try walk(path: keyPath, from: [entity])
    }

    // MARK: - Predicates

    private static func check(_ node: PredicateNode, reach: Reach, variables: [String: Reach]) throws {
        switch node {
        case .constant, .block:
            return
        case .comparison(let comparison):
            _ = try check(comparison.left, reach: reach, variables: variables)
            _ = try check(comparison.right, reach: reach, variables: variables)
        case .compound(_, let children):
            for child in children { try check(child, reach: reach, variables: variables) }
        }
    }

    // MARK: - Expressions

    /// Checks every key read by `expression` (with `SELF` holding `reach`); returns what it yields.
    private static func check(_ expression: ExpressionNode, reach: Reach, variables: [String: Reach]) throws -> Reach {
        switch expression {
        case .constant(let value):
            return constantReach(value)
        case .evaluatedObject:
            return reach
        case .variable(let name):
            return variables[name] ?? []
        case .anyKey:
            return []
        case .keyPath(let operand, let path):
            return try walk(path: path, from: check(operand, reach: reach, variables: variables))
        case .block(let block, let arguments):
            if let late = block.lateKeyPath, let base = arguments.first {
                // A key path made before the model was loaded: it must have a name by now.
                let name = late.required(for: "a fetch request's predicate")
                return try check(name == "self" ? base : PredicateParser.appendKey(name, to: base), reach: reach, variables: variables)
            }
            for argument in arguments { _ = try check(argument, reach: reach, variables: variables) }
            return []  // a closure's result is the program's own business
        case .function(let name, let arguments) where name == BuiltinFunction.indexFunction && arguments.count == 2:
            return try checkSubscript(arguments[0], arguments[1], reach: reach, variables: variables)
        case .function(_, let arguments), .aggregate(let arguments):
            // A function may return one of its arguments (min:, max:, …): it yields what they do.
            var result: Reach = []
            for argument in arguments { union(&result, try check(argument, reach: reach, variables: variables)) }
            return result
        case .customFunction(let operand, _, let arguments):
            _ = try check(operand, reach: reach, variables: variables)
            for argument in arguments { _ = try check(argument, reach: reach, variables: variables) }
            return []  // never performed on Linux: evaluates to nil
        case .fetchRequest(let request, let context, _):
            _ = try check(request, reach: reach, variables: variables)
            _ = try check(context, reach: reach, variables: variables)
            return []  // fetched objects of an entity the request names at run time
        case .set(_, let lhs, let rhs):
            var result = try check(lhs, reach: reach, variables: variables)
            union(&result, try check(rhs, reach: reach, variables: variables))
            return result
        case .subquery(let collection, let variable, let predicate):
            // Inside, both `$variable` and `SELF` are an element of the collection.
            let elements = try check(collection, reach: reach, variables: variables)
            var inner = variables
            inner[variable] = elements
            try check(predicate, reach: elements, variables: inner)
            return elements
        case .conditional(let predicate, let whenTrue, let whenFalse):
            try check(predicate, reach: reach, variables: variables)
            var result = try check(whenTrue, reach: reach, variables: variables)
            union(&result, try check(whenFalse, reach: reach, variables: variables))
            return result
        }
    }

    /// `base[index]`: a position or `FIRST`/`LAST` yields an element, `SIZE` a number, a string
    /// key reads that key. A computed index on something holding managed objects cannot be
    /// checked before it runs, so it is refused.
    private static func checkSubscript(_ base: ExpressionNode, _ index: ExpressionNode, reach: Reach,
                                       variables: [String: Reach]) throws -> Reach {
        let collection = try check(base, reach: reach, variables: variables)
        _ = try check(index, reach: reach, variables: variables)
        guard !collection.isEmpty else { return [] }
        guard case .constant(let value) = index else {
            throw CoreDataError.make(NSCoreDataError, "The subscript \(PredicateFormatter.format(index)) of \(PredicateFormatter.format(base)) is computed, so the key it reads from entity '\(collection[0].name ?? "?")' cannot be checked; use a constant index or key.")
        }
        if let symbol = value as? PredicateIndexSymbol { return symbol == .size ? [] : collection }
        if let key = PredicateValue.string(value) {
            // One key, read as is: no dots, no collection operators.
            var result: Reach = []
            for entity in collection { union(&result, try step(key, path: key, from: entity)) }
            return result
        }
        return collection
    }

    // MARK: - Key paths

    /// Walks a dotted key path as `KeyValueAccess` will; returns the entities it ends on.
    @discardableResult
    private static func walk(path: String, from start: Reach) throws -> Reach {
        guard !start.isEmpty else { return [] }
        let components = path.split(separator: ".", omittingEmptySubsequences: false)
        return try walk(components: components[...], path: path, from: start)
    }

    private static func walk(components: ArraySlice<Substring>, path: String, from start: Reach) throws -> Reach {
        var reach = start
        for (position, component) in zip(components.indices, components) {
            if reach.isEmpty { return [] }  // past an attribute: values, not objects
            if component.hasPrefix("@") {
                // A collection operator reads the rest of the path from each element.
                let rest = components[(position + 1)...]
                let ends = rest.isEmpty ? reach : try walk(components: rest, path: path, from: reach)
                return ["@count", "@sum", "@avg"].contains(component) ? [] : ends
            }
            var next: Reach = []
            for entity in reach {
                union(&next, try step(String(component), path: path, from: entity))
            }
            reach = next
        }
        return reach
    }

    /// What reading `key` from an object of `entity` yields, as `NSManagedObject.value(forKey:)` reads it.
    private static func step(_ key: String, path: String, from entity: NSEntityDescription) throws -> Reach {
        if key == "self" { return [entity] }
        if key == "objectID" { return [] }
        guard let property = entity.propertiesByName[key] else {
            throw CoreDataError.make(NSCoreDataError, "keypath '\(path)' not found in entity '\(entity.name ?? "?")': it has no property '\(key)'.",
                                     userInfo: [NSValidationKeyErrorKey: key])
        }
        if let relationship = property as? NSRelationshipDescription {
            return relationship.destinationEntity.map { [$0] } ?? []
        }
        if let fetched = property as? NSFetchedPropertyDescription, let request = fetched.fetchRequest {
            let destination = request.entity ?? request.entityName.flatMap { entity.managedObjectModel?.entitiesByName[$0] }
            return destination.map { [$0] } ?? []
        }
        return []
    }

    // MARK: - Helpers

    /// The entities of the managed objects in a constant (an object, or a collection of them).
    private static func constantReach(_ value: Any?) -> Reach {
        if let object = value as? NSManagedObject { return [object.entity] }
        guard let elements = PredicateValue.elements(value) else { return [] }
        var result: Reach = []
        for element in elements.values {
            if let object = PredicateValue.unwrap(element) as? NSManagedObject { union(&result, [object.entity]) }
        }
        return result
    }

    private static func union(_ result: inout Reach, _ more: Reach) {
        for entity in more where !result.contains(where: { $0 === entity }) { result.append(entity) }
    }
}
