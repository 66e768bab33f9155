import Foundation

/// The column rules of a `.dictionaryResultType` fetch that the context (computing rows in
/// memory) and a store (computing them in SQL) must share, so both give the same rows.
package enum DictionaryColumns {
    /// Keys that stand for the object itself; its ID is the column's value.
    package static let objectKeys: Set<String> = ["objectID", "self", "SELF"]

    /// The key path of an expression description that reads a value per object: `SELF`
    /// (the object, so its ID) or a key path; nil for functions.
    package static func plainKeyPath(_ expression: NSExpression) -> String? {
        switch expression.node {
        case .evaluatedObject: "self"
        case .keyPath(.evaluatedObject, let path): path
        default: nil
        }
    }

    /// The collection operators a dictionary column's key path may apply to a to-many value.
    package static let collectionOperators: Set<String> = ["@count", "@sum", "@avg", "@min", "@max"]

    /// Whether `path` reads a value of `entity` that every object answers without an undefined
    /// key: each dot-separated key names a property of the entity reached so far (relationships
    /// lead on; an attribute or fetched property ends the path), and a to-many relationship is
    /// followed by a collection operator (`@count` last, the others before a key of the members).
    /// `name.`, `name'` and `friends.@count"` are not; `department.name` and `friends.@count` are.
    ///
    /// A plain column may not end at, or read through, a to-many relationship (Apple's
    /// `propertiesToFetch` takes "attributes, to-one relationships, or expressions");
    /// `allowsToMany` lets an aggregate's argument do so (`count:(tags)`, `sum:(tags.priority)`).
    package static func isReadableKeyPath(_ path: String, of entity: NSEntityDescription, allowsToMany: Bool = false) -> Bool {
        let keys = path.split(separator: ".", omittingEmptySubsequences: false)
        var current = entity
        var index = 0
        var throughToMany = false
        while index < keys.count {
            let key = String(keys[index])
            let isLast = index == keys.count - 1
            if key.hasPrefix("@") {
                guard throughToMany, collectionOperators.contains(key) else { return false }
                // `@count` counts the members; the others aggregate a key of theirs.
                if key == "@count" { return isLast }
                guard !isLast else { return false }
                throughToMany = false
                index += 1
                continue
            }
            if throughToMany && !allowsToMany { return false }
            guard let property = current.propertiesByName[key] else { return false }
            if let relationship = property as? NSRelationshipDescription {
                guard let destination = relationship.destinationEntity else { return false }
                current = destination
                if relationship.isToMany { throughToMany = true }
            } else if !isLast {
                return false
            }
            index += 1
        }
        return !keys.isEmpty && (allowsToMany || !throughToMany)
    }
}
