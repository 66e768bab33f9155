import Foundation

/// The userInfo key of a batch insert error: the index of the row it is about (0-based, in the
/// order the rows were given or produced). An OpenCoreData addition; Apple names no row.
public let OCDBatchRowIndexErrorKey = "OCDBatchRowIndex"

/// Turns the rows of an `NSBatchInsertRequest` (dictionaries or handler-filled objects) into
/// store rows, checked against the model before the store sees them.
///
/// Every row starts from the entity's defaults (`template`); each key it gives must name a
/// stored, non-derived attribute and hold a value of its type. A mandatory attribute left nil
/// with no default fails the request. No other validation runs (Apple's batch requests skip
/// model validation). Errors name the row index and the key; the store then writes nothing.
struct BatchInsertRows {
    let entity: NSEntityDescription
    private let layout: EntityLayout
    /// One row of defaults, in slot order.
    private let template: StoreValues
    /// Slots of mandatory attributes, checked for nil after a row's keys are applied.
    private let mandatorySlots: [Int]
    /// Whether a row may set each slot: stored attributes that are not derived.
    private let settable: [Bool]
    /// How each slot's value is converted, chosen once per request from its attribute's type
    /// rather than per value.
    private let conversions: [Conversion]

    init(entity: NSEntityDescription) {
        self.entity = entity
        let layout = entity.layout
        self.layout = layout
        var template = StoreValues()
        var mandatory: [Int] = []
        var settable: [Bool] = []
        var conversions: [Conversion] = []
        for (slot, property) in layout.properties.enumerated() {
            conversions.append((property as? NSAttributeDescription).map(Conversion.init) ?? .unconvertible)
            if let relationship = property as? NSRelationshipDescription {
                template.append(relationship.isToMany && !relationship.isTransient ? .objectIDs([]) : .null)
                settable.append(false)
                continue
            }
            guard let attribute = property as? NSAttributeDescription, !attribute.isTransient, !(attribute is NSDerivedAttributeDescription) else {
                template.append(.null)
                settable.append(false)
                continue
            }
            settable.append(true)
            if AttributeConversion.isCustom(attribute.attributeType) {
                template.append(attribute.defaultValue.map { TransformableCoding.encode($0, attribute: attribute) } ?? .null)
            } else {
                template.append(AttributeConversion.storeValue(defaultOf: attribute))
            }
            if !attribute.isOptional { mandatory.append(slot) }
        }
        self.template = template
        self.mandatorySlots = mandatory
        self.settable = settable
        self.conversions = conversions
    }

    // MARK: - Rows

    /// Fills `values` with the store row of a dictionary.
    func fill(_ values: inout StoreValues, from dictionary: [String: Any], index: Int) throws {
        resetToDefaults(&values)
        for (key, value) in dictionary {
            let slot = try attributeSlot(key, index: index)
            values[slot] = try storeValue(value, slot: slot, key: key, index: index)
        }
        try checkMandatory(values, index: index)
    }

    /// An empty row for a `dictionaryHandler` to fill in.
    func makeRowDictionary() -> BatchInsertRowDictionary {
        BatchInsertRowDictionary(names: layout.properties.map(\.name), slotByName: layout.indexByName)
    }

    /// Fills `values` with the store row of a dictionary a `dictionaryHandler` filled in, read by
    /// slot. A key that names no property, or is not a string, fails the request.
    func fill(_ values: inout StoreValues, from dictionary: BatchInsertRowDictionary, index: Int) throws {
        if let (key, _) = dictionary.otherEntries.first {
            guard let name = key.base as? String else {
                throw Self.error(NSCoreDataError, "Row \(index) of the batch insert into '\(entity.name ?? "?")' has a key that is not a string: \(key.base).",
                                 key: "\(key.base)", index: index)
            }
            _ = try attributeSlot(name, index: index)
        }
        if values.count != template.count { values = template }
        // In the order the handler set them, so an error names the first bad key.
        for slot in dictionary.setSlots {
            guard let value = dictionary.values[slot] else { continue }
            if !settable[slot] { try checkSettable(slot, key: layout.properties[slot].name, index: index) }
            values[slot] = try storeValue(value, slot: slot, key: layout.properties[slot].name, index: index)
        }
        // The buffer still holds the previous row: slots this row leaves out take their defaults.
        if dictionary.setSlots.count != template.count {
            for slot in 0..<template.count where dictionary.values[slot] == nil {
                values[slot] = template[slot]
            }
        }
        try checkMandatory(values, index: index)
    }

    /// Fills `values` with the store row of an object a `managedObjectHandler` filled in;
    /// relationships must be empty.
    func fill(_ values: inout StoreValues, from object: NSManagedObject, index: Int) throws {
        values = object.currentStoreValues()
        for slot in layout.relationshipIndices where slot < values.count {
            let property = layout.properties[slot]
            let isSet: Bool
            switch values[slot] {
            case .objectID: isSet = true
            case .objectIDs(let ids): isSet = !ids.isEmpty
            default: isSet = false
            }
            if isSet {
                throw Self.error(NSCoreDataError, "Row \(index) of the batch insert into '\(entity.name ?? "?")' sets the relationship '\(property.name)'; a batch insert sets attributes only.",
                                 key: property.name, index: index)
            }
            values[slot] = template[slot]
        }
        for (slot, property) in layout.properties.enumerated() where property is NSDerivedAttributeDescription || property.isTransient {
            values[slot] = template[slot]
        }
        try checkMandatory(values, index: index)
    }

    /// Makes `values` the row of defaults, in the buffer it already has once it has one.
    private func resetToDefaults(_ values: inout StoreValues) {
        guard values.count == template.count else {
            values = template
            return
        }
        for slot in 0..<template.count { values[slot] = template[slot] }
    }

    /// The slot of a key a row may set.
    private func attributeSlot(_ key: String, index: Int) throws -> Int {
        guard let slot = layout.indexByName[key] else {
            throw Self.error(NSCoreDataError, "Row \(index) of the batch insert into '\(entity.name ?? "?")' has the key '\(key)', which is not a property of the entity.",
                             key: key, index: index)
        }
        if !settable[slot] { try checkSettable(slot, key: key, index: index) }
        return slot
    }

    /// Fails for a property a row cannot set: a relationship, a transient or derived attribute.
    private func checkSettable(_ slot: Int, key: String, index: Int) throws {
        let name = entity.name ?? "?"
        let property = layout.properties[slot]
        if property is NSRelationshipDescription {
            throw Self.error(NSCoreDataError, "Row \(index) of the batch insert into '\(name)' sets the relationship '\(key)'; a batch insert sets attributes only.",
                             key: key, index: index)
        }
        if property.isTransient || property is NSDerivedAttributeDescription {
            throw Self.error(NSCoreDataError, "Row \(index) of the batch insert into '\(name)' sets '\(key)', which is \(property.isTransient ? "transient" : "derived") and has no stored value to insert.",
                             key: key, index: index)
        }
    }

    /// A value in store form, or a validation error naming the row and key.
    @inline(__always)
    private func storeValue(_ value: Any, slot: Int, key: @autoclosure () -> String, index: Int) throws -> StoreValue {
        if let converted = conversions[slot].storeValue(value) { return converted }
        return try failedConversion(value, slot: slot, key: key(), index: index)
    }

    /// The validation error of a value of the wrong type for its attribute.
    private func failedConversion(_ value: Any, slot: Int, key: String, index: Int) throws -> StoreValue {
        let type = (layout.properties[slot] as! NSAttributeDescription).attributeType
        throw Self.error(NSManagedObjectValidationError,
                         "Row \(index) of the batch insert into '\(entity.name ?? "?")' gives '\(key)' a \(AttributeConversion.typeName(of: value)); the attribute is of type \(type.xmlName).",
                         key: key, index: index, value: value)
    }

    private func checkMandatory(_ values: StoreValues, index: Int) throws {
        for slot in mandatorySlots where values[slot].isNull {
            let key = layout.properties[slot].name
            throw Self.error(NSValidationMissingMandatoryPropertyError,
                             "Row \(index) of the batch insert into '\(entity.name ?? "?")' has no value for the mandatory attribute '\(key)', which has no default.",
                             key: key, index: index)
        }
    }

    private static func error(_ code: Int, _ message: String, key: String, index: Int, value: Any? = nil) -> NSError {
        var info: [String: Any] = [NSValidationKeyErrorKey: key, OCDBatchRowIndexErrorKey: index]
        if let value { info[NSValidationValueErrorKey] = value }
        return CoreDataError.make(code, message + " Nothing was inserted.", userInfo: info)
    }
}
