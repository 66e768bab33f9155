import Foundation

/// Uniqueness constraints as every store checks them.
extension NSEntityDescription {
    /// The property names of each uniqueness constraint (descriptions resolved to names).
    package var uniquenessConstraintNames: [[String]] {
        uniquenessConstraints.map { constraint in
            constraint.map { element in
                if let property = element as? NSPropertyDescription { return property.name }
                return element as? String ?? "\(element)"
            }
        }
    }

    /// The uniqueness constraints that apply to this entity, its ancestors' included.
    package var effectiveUniquenessConstraints: [[String]] {
        (superentity?.effectiveUniquenessConstraints ?? []) + uniquenessConstraintNames
    }

    /// The entity of this one's hierarchy that declares a uniqueness constraint (this entity or
    /// an ancestor): rows of its whole hierarchy share the constraint's key space.
    package func constraintOwner(of constraint: [String]) -> NSEntityDescription {
        var current: NSEntityDescription? = self
        while let candidate = current {
            if candidate.uniquenessConstraintNames.contains(constraint) { return candidate }
            current = candidate.superentity
        }
        return self
    }
}
