import Foundation

/// The slots of a new object of one entity: default values, with to-many slots as placeholders
/// that `NSManagedObject.initialSlots` replaces with fresh storage.
///
/// Copying it is cheaper than building the slots property by property for every insert. It is
/// the object graph's, so the store seam's `EntityLayout` keeps it only as an opaque attachment
/// (built on first use, then one atomic load per object).
final class SlotTemplate: @unchecked Sendable {
    // @unchecked Sendable: `slots` is a `let` built from a frozen entity's defaults and only
    // ever copied; its `.custom` values are the model's default values, shared read-only.

    let slots: ContiguousArray<ObjectSlot>

    init(layout: EntityLayout) {
        slots = ContiguousArray(layout.properties.map { property -> ObjectSlot in
            if let relationship = property as? NSRelationshipDescription {
                return relationship.isToMany ? .unloadedToMany : .toOne(nil)
            }
            if let attribute = property as? NSAttributeDescription {
                return AttributeConversion.isCustom(attribute.attributeType)
                    ? .custom(attribute.defaultValue)
                    : .value(AttributeConversion.storeValue(defaultOf: attribute))
            }
            return .custom(nil)
        })
    }
}

extension EntityLayout {
    /// The slots of a new object of this layout's entity, built once per layout.
    @inline(__always)
    var initialSlotTemplate: ContiguousArray<ObjectSlot> {
        attachment { SlotTemplate(layout: self) }.slots
    }
}
