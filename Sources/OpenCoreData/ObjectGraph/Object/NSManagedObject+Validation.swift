import Foundation

// MARK: - Validation

extension NSManagedObject {
    /// Checks Deny relationships: they must be empty for the object to be deleted.
    package func validateDenyRules() throws {
        var errors: [NSError] = []
        for index in layout.relationshipIndices {
            let relationship = layout.relationship(at: index)
            guard relationship.deleteRule == .denyDeleteRule else { continue }
            let destinations = _context?.currentDestinations(of: self, at: index) ?? []
            let live = destinations.filter { !$0.isDeleted }
            if !live.isEmpty {
                errors.append(validationError(NSValidationRelationshipDeniedDeleteError, key: relationship.name, value: live,
                                              "The relationship '\(relationship.name)' of \(entity.name ?? "?") has a Deny delete rule and still has \(live.count) object(s)."))
            }
        }
        try throwCollected(errors)
    }

    /// Validates one value for a key against the model's rules; throws a validation error.
    public func validateValue(_ value: Any?, forKey key: String) throws {
        guard let property = layout.propertiesByName[key] else { unknownKey(key) }
        var errors: [NSError] = []
        validate(value, property: property, into: &errors)
        try throwCollected(errors)
    }

    package func validateAllProperties() throws {
        fireFaultIfNeeded()
        var errors: [NSError] = []
        for index in layout.validatedIndices {
            let property = layout.properties[index]
            // Fast path: a plain attribute only needs its nil check, read from the slot.
            if !layout.isRelationship[index], property.validationPredicates.isEmpty, layout.attributeTypes[index] != .compositeAttributeType,
               !(layout.attributeTypes[index] == .integer16AttributeType || layout.attributeTypes[index] == .integer32AttributeType) {
                if !property.isOptional && !property.isTransient && slotIsNil(index) {
                    errors.append(validationError(NSValidationMissingMandatoryPropertyError, key: property.name, value: nil,
                                                  "\(entity.name ?? "?").\(property.name) is a required value."))
                }
                continue
            }
            let value: Any?
            if let relationship = property as? NSRelationshipDescription {
                if relationship.isToMany && relationship.isOptional && relationship.minCount <= 0 && relationship.maxCount <= 0 { continue }
                value = relationship.isToMany ? Array(loadedToMany(at: index).objects) : resolveToOne(at: index)
            } else if layout.attributeTypes[index].isInteger, case .int(let raw) = storeValue(at: index) {
                // The stored value, not the type-truncated one value(forKey:) would return.
                value = NSNumber(value: raw)
            } else {
                value = publicValue(at: index)
            }
            validate(value, property: property, into: &errors)
        }
        try throwCollected(errors)
    }

    private func slotIsNil(_ index: Int) -> Bool {
        switch slots[index] {
        case .value(let value): return value.isNull
        case .custom(let value): return value == nil || value is NSNull
        default: return false
        }
    }

    private func validate(_ value: Any?, property: NSPropertyDescription, into errors: inout [NSError]) {
        let key = property.name
        let isNil = value == nil || value is NSNull
        if let relationship = property as? NSRelationshipDescription {
            if relationship.isToMany {
                let count = (value as? [NSManagedObject])?.count ?? (value as? NSSet)?.count ?? 0
                if count == 0 && !relationship.isOptional {
                    errors.append(validationError(NSValidationMissingMandatoryPropertyError, key: key, value: value, "\(entity.name ?? "?").\(key) is a required value."))
                } else if count > 0 || !relationship.isOptional {
                    if relationship.minCount > 0 && count < relationship.minCount {
                        errors.append(validationError(NSValidationRelationshipLacksMinimumCountError, key: key, value: value, "\(entity.name ?? "?").\(key) has \(count) object(s); at least \(relationship.minCount) are required."))
                    }
                    if relationship.maxCount > 0 && count > relationship.maxCount {
                        errors.append(validationError(NSValidationRelationshipExceedsMaximumCountError, key: key, value: value, "\(entity.name ?? "?").\(key) has \(count) object(s); at most \(relationship.maxCount) are allowed."))
                    }
                }
            } else if isNil && !relationship.isOptional {
                errors.append(validationError(NSValidationMissingMandatoryPropertyError, key: key, value: value, "\(entity.name ?? "?").\(key) is a required value."))
            }
            return
        }
        if isNil {
            if !property.isOptional && !property.isTransient {
                errors.append(validationError(NSValidationMissingMandatoryPropertyError, key: key, value: value, "\(entity.name ?? "?").\(key) is a required value."))
            }
            return
        }
        if let composite = property as? NSCompositeAttributeDescription {
            validateElements(of: composite, value: value, into: &errors)
        }
        if let attribute = property as? NSAttributeDescription, attribute.attributeType == .integer16AttributeType || attribute.attributeType == .integer32AttributeType,
           let number = value.flatMap(AttributeConversion.integer) {
            let bounds: ClosedRange<Int64> = attribute.attributeType == .integer16AttributeType ? Int64(Int16.min)...Int64(Int16.max) : Int64(Int32.min)...Int64(Int32.max)
            if number > bounds.upperBound {
                errors.append(validationError(NSValidationNumberTooLargeError, key: key, value: value, "\(entity.name ?? "?").\(key) value \(number) does not fit in \(attribute.attributeType.xmlName)."))
            } else if number < bounds.lowerBound {
                errors.append(validationError(NSValidationNumberTooSmallError, key: key, value: value, "\(entity.name ?? "?").\(key) value \(number) does not fit in \(attribute.attributeType.xmlName)."))
            }
        }
        for (position, predicate) in property.validationPredicates.enumerated() {
            let rule = ValidationRule(predicate: predicate)
            guard !rule.accepts(value) else { continue }
            let warning = position < property.validationWarnings.count ? "\(property.validationWarnings[position])" : nil
            let code = rule.errorCode(for: value, attributeType: (property as? NSAttributeDescription)?.attributeType)
            let message = warning.map { "\(entity.name ?? "?").\(key): \($0)" }
                ?? "\(entity.name ?? "?").\(key) value \(value.map { "\($0)" } ?? "nil") fails validation (\(predicate))."
            var error = validationError(code, key: key, value: value, message)
            var info = error.userInfo
            info[NSValidationPredicateErrorKey] = predicate
            error = NSError(domain: error.domain, code: error.code, userInfo: info)
            errors.append(error)
        }
    }

    /// A present composite's mandatory elements: each nil one is a missing mandatory property,
    /// keyed by its key path (`author.person`).
    private func validateElements(of composite: NSCompositeAttributeDescription, value: Any?, into errors: inout [NSError]) {
        guard let root = value.flatMap(CompositeCoding.dictionary) else { return }
        func check(_ level: NSCompositeAttributeDescription, _ values: [String: Any], prefix: String, depth: Int) {
            guard depth < NSCompositeAttributeDescription.maximumDepth else { return }
            for element in level.elements {
                let keyPath = prefix + "." + element.name
                let elementValue = values[element.name].flatMap { $0 is NSNull ? nil : $0 }
                guard let elementValue else {
                    if !element.isOptional {
                        errors.append(validationError(NSValidationMissingMandatoryPropertyError, key: keyPath, value: nil,
                                                      "\(entity.name ?? "?").\(keyPath) is a required value."))
                    }
                    continue
                }
                if let nested = element as? NSCompositeAttributeDescription, let dictionary = CompositeCoding.dictionary(elementValue) {
                    check(nested, dictionary, prefix: keyPath, depth: depth + 1)
                }
            }
        }
        check(composite, root, prefix: composite.name, depth: 0)
    }

    func validationError(_ code: Int, key: String, value: Any?, _ message: String) -> NSError {
        var info: [String: Any] = [NSValidationObjectErrorKey: self, NSValidationKeyErrorKey: key]
        if let value { info[NSValidationValueErrorKey] = value }
        return CoreDataError.make(code, message, userInfo: info)
    }

    private func throwCollected(_ errors: [NSError]) throws {
        if errors.count == 1 { throw errors[0] }
        if errors.count > 1 {
            throw CoreDataError.make(NSValidationMultipleErrorsError, "Multiple validation errors occurred.", userInfo: [NSDetailedErrorsKey: errors])
        }
    }
}
