import Foundation

/// Finds the relationships a fetched results controller's predicate, sort keys and section key
/// path read through, so that a change of a related object (a todo's list renamed) re-places the
/// results that read it. Apple's controller ignores such changes (a known pain point); this one
/// follows each chain back through the inverse relationships.
enum FetchedResultsPaths {
    /// The relationship chains (from `entity`) of every key path the request reads from its objects.
    static func relationshipChains(from entity: NSEntityDescription, predicate: NSPredicate?,
                                   keyPaths: [String]) -> [[NSRelationshipDescription]] {
        var paths = keyPaths
        if let predicate { collect(predicate.node, variables: [:], into: &paths) }
        var chains: [[NSRelationshipDescription]] = []
        for path in paths {
            let chain = relationships(along: path, from: entity)
            if !chain.isEmpty, !chains.contains(where: { $0.elementsEqual(chain, by: ===) }) { chains.append(chain) }
        }
        return chains
    }

    /// The relationships a dotted key path crosses from `entity`, up to its first non-relationship key.
    private static func relationships(along path: String, from entity: NSEntityDescription) -> [NSRelationshipDescription] {
        var chain: [NSRelationshipDescription] = []
        var current: NSEntityDescription? = entity
        for component in path.split(separator: ".") {
            guard let here = current,
                  let relationship = here.relationshipsByName[String(component)] else { break }
            chain.append(relationship)
            current = relationship.destinationEntity
        }
        return chain
    }

    // MARK: - Walking predicates

    /// Appends the key paths `node` reads from the evaluated object (variables bound by
    /// `SUBQUERY` stand for their collection's key path).
    private static func collect(_ node: PredicateNode, variables: [String: String], into paths: inout [String]) {
        switch node {
        case .constant, .block:
            return
        case .comparison(let comparison):
            collect(comparison.left, variables: variables, into: &paths)
            collect(comparison.right, variables: variables, into: &paths)
        case .compound(_, let children):
            for child in children { collect(child, variables: variables, into: &paths) }
        }
    }

    private static func collect(_ expression: ExpressionNode, variables: [String: String], into paths: inout [String]) {
        switch expression {
        case .constant, .evaluatedObject, .anyKey, .variable:
            return
        case .keyPath(let operand, let path):
            switch operand {
            case .evaluatedObject: paths.append(path)
            case .variable(let name): if let base = variables[name] { paths.append(base + "." + path) }
            default: collect(operand, variables: variables, into: &paths)
            }
        case .function(_, let arguments), .aggregate(let arguments), .block(_, let arguments):
            for argument in arguments { collect(argument, variables: variables, into: &paths) }
        case .customFunction(let operand, _, let arguments):
            collect(operand, variables: variables, into: &paths)
            for argument in arguments { collect(argument, variables: variables, into: &paths) }
        case .set(_, let lhs, let rhs):
            collect(lhs, variables: variables, into: &paths)
            collect(rhs, variables: variables, into: &paths)
        case .subquery(let collection, let variable, let predicate):
            collect(collection, variables: variables, into: &paths)
            var inner = variables
            if case .keyPath(.evaluatedObject, let base) = collection { inner[variable] = base }
            collect(predicate, variables: inner, into: &paths)
        case .conditional(let predicate, let whenTrue, let whenFalse):
            collect(predicate, variables: variables, into: &paths)
            collect(whenTrue, variables: variables, into: &paths)
            collect(whenFalse, variables: variables, into: &paths)
        case .fetchRequest(let request, let context, _):
            collect(request, variables: variables, into: &paths)
            collect(context, variables: variables, into: &paths)
        }
    }
}
