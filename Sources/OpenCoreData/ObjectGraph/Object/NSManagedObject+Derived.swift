import Foundation

extension NSManagedObject {
    /// Computes derived attributes (`NSDerivedAttributeDescription`) from their expressions.
    ///
    /// Core Data derives these values when an object is saved: a key path (`author.name`,
    /// `pages.@count`) or a function of one (`canonical:(title)`, `now()`). The SQLite store
    /// also keeps Apple's triggers working; computing the value here keeps the object, the
    /// in-memory store and the row in agreement.
    package func computeDerivedAttributes() {
        guard layout.hasDerivedAttributes else { return }
        fireFaultIfNeeded()
        for index in layout.attributeIndices {
            guard let derived = layout.properties[index] as? NSDerivedAttributeDescription,
                  let expression = derived.derivationExpression else { continue }
            let raw = expression.expressionValue(with: self, context: nil)
            let type = layout.attributeTypes[index]
            if AttributeConversion.isCustom(type) {
                slots[index] = .custom(raw)
            } else if let value = AttributeConversion.storeValue(Self.unwrapCollectionResult(raw), type: type) {
                if case .value(let old) = slots[index], old == value { continue }
                slots[index] = .value(value)
                markChanged()
            }
        }
    }

    /// `@count` and aggregates give numbers; a key path through a to-many gives a collection, of
    /// which Core Data keeps nothing meaningful, so it reads as nil.
    private static func unwrapCollectionResult(_ value: Any?) -> Any? {
        if value is NSSet || value is NSOrderedSet || value is [Any] { return nil }
        return value
    }
}
