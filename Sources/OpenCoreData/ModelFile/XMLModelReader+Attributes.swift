import Foundation

extension XMLModelReader {
    /// Reads an `<attribute>`: plain, derived (`derived="YES"`) or composite (`composite="Name"`).
    func readAttribute(_ element: ModelXMLElement, composites: [String: ModelXMLElement],
                       location: ModelFileLocation, compositePath: [String] = []) throws -> NSAttributeDescription {
        let name = try propertyName(element, location: location)
        let location = location.property(name).line(element.line)
        guard let typeName = element["attributeType"] else {
            throw ModelFileError.corrupt(location, "the attribute has no attributeType")
        }
        guard let type = NSAttributeType(xmlName: typeName) else {
            throw ModelFileError.corrupt(location, "unknown attributeType '\(typeName)'")
        }

        let attribute: NSAttributeDescription
        if type == .compositeAttributeType || element["composite"] != nil {
            attribute = try readComposite(element, composites: composites, location: location, path: compositePath)
        } else if element.flag("derived") {
            let derived = NSDerivedAttributeDescription()
            if let format = nonEmpty(element["derivationExpression"]) {
                derived.derivationExpression = try ModelPredicates.expression(format, location: location)
            }
            attribute = derived
        } else {
            attribute = NSAttributeDescription()
        }
        try readCommon(element, into: attribute, name: name)
        attribute.attributeType = type
        if attribute is NSDerivedAttributeDescription { attribute.isReadOnly = true }
        attribute.valueTransformerName = nonEmpty(element["valueTransformerName"])
        if let className = nonEmpty(element["customClassName"]) { attribute.attributeValueClassName = className }
        attribute.allowsExternalBinaryDataStorage = element.flag("allowsExternalBinaryDataStorage")
        attribute.allowsCloudEncryption = element.flag("allowsCloudEncryption")
        attribute.preservesValueInHistoryOnDeletion = element.flag("preserveAfterDeletion")
        attribute.usesScalarValueType = element.flag("usesScalarValueType")
        attribute.defaultValue = try defaultValue(element, type: type, location: location)
        let rules = try validationRules(element, type: type, location: location)
        if !rules.isEmpty {
            attribute.setValidationPredicates(rules.map(\.predicate), withValidationWarnings: rules.map(\.warning))
        }
        return attribute
    }

    // MARK: - Composites

    private func readComposite(_ element: ModelXMLElement, composites: [String: ModelXMLElement],
                               location: ModelFileLocation, path: [String]) throws -> NSCompositeAttributeDescription {
        guard let compositeName = nonEmpty(element["composite"]) else {
            throw ModelFileError.corrupt(location, "the Composite attribute names no composite")
        }
        guard let definition = composites[compositeName] else {
            throw ModelFileError.invalidModel(location, "the composite '\(compositeName)' does not exist")
        }
        guard !path.contains(compositeName) else {
            throw ModelFileError.invalidModel(location, "the composite '\(compositeName)' contains itself")
        }
        let composite = NSCompositeAttributeDescription()
        var seen = Set<String>()
        var elements: [NSAttributeDescription] = []
        for child in definition.children(named: "attribute") {
            let element = try readAttribute(child, composites: composites, location: location, compositePath: path + [compositeName])
            guard seen.insert(element.name).inserted else {
                throw ModelFileError.invalidModel(location.line(child.line), "the composite '\(compositeName)' has two elements named '\(element.name)'")
            }
            elements.append(element)
        }
        composite.elements = elements
        return composite
    }

    // MARK: - Default values

    private func defaultValue(_ element: ModelXMLElement, type: NSAttributeType, location: ModelFileLocation) throws -> Any? {
        if type == .dateAttributeType, let interval = element["defaultDateTimeInterval"] {
            guard let seconds = Double(interval), seconds.isFinite else {
                throw ModelFileError.corrupt(location, "defaultDateTimeInterval '\(interval)' is not a number")
            }
            return Date(timeIntervalSinceReferenceDate: seconds)
        }
        guard let text = element["defaultValueString"] else { return nil }
        func invalid() -> NSError {
            ModelFileError.corrupt(location, "defaultValueString '\(text)' is not a valid \(type.xmlName) value")
        }
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            if let value = Int64(text) { return NSNumber(value: value) }
            if let value = Double(text), value.isFinite, let integer = Int64(exactly: value.rounded(.towardZero)) {
                return NSNumber(value: integer)
            }
            throw invalid()
        case .doubleAttributeType:
            guard let value = Double(text) else { throw invalid() }
            return NSNumber(value: value)
        case .floatAttributeType:
            guard let value = Float(text) else { throw invalid() }
            return NSNumber(value: value)
        case .decimalAttributeType:
            guard let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), !value.isNaN else { throw invalid() }
            return NSDecimalNumber(decimal: value)
        case .booleanAttributeType:
            switch text.uppercased() {
            case "YES", "TRUE", "1": return NSNumber(value: true)
            case "NO", "FALSE", "0": return NSNumber(value: false)
            default: throw invalid()
            }
        case .stringAttributeType:
            return text
        case .dateAttributeType:
            guard let date = Self.parseDate(text) else { throw invalid() }
            return date
        case .UUIDAttributeType:
            guard let uuid = UUID(uuidString: text) else { throw invalid() }
            return uuid
        case .URIAttributeType:
            guard let url = URL(string: text) else { throw invalid() }
            return url
        case .binaryDataAttributeType, .undefinedAttributeType, .transformableAttributeType, .objectIDAttributeType, .compositeAttributeType:
            return nil
        }
    }

    /// Parses Xcode's date text, `2013-04-23 12:00:00 +0000`.
    static func parseDate(_ text: String) -> Date? {
        for format in ["yyyy-MM-dd HH:mm:ss Z", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm", "yyyy-MM-dd"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    // MARK: - Validation

    /// The model editor's minimum, maximum and pattern, as the predicates Xcode's compiler makes:
    /// numbers `SELF >= 1`, lengths of strings and data `length <= 20`, dates
    /// `SELF >= CAST(284000400.000000, "NSDate")` and patterns `SELF MATCHES "[a-z]+"`.
    private func validationRules(_ element: ModelXMLElement, type: NSAttributeType,
                                 location: ModelFileLocation) throws -> [(predicate: NSPredicate, warning: String)] {
        var rules: [(predicate: NSPredicate, warning: String)] = []
        func add(_ format: String, _ argument: Any, _ warning: String) throws {
            rules.append((try ModelPredicates.predicate(format, arguments: [argument], location: location), warning))
        }
        switch type {
        case .dateAttributeType:
            for (attribute, textAttribute, comparison, word) in [("minDateTimeInterval", "minValueString", ">=", "earliest"),
                                                                ("maxDateTimeInterval", "maxValueString", "<=", "latest")] {
                let date: Date
                if let interval = element[attribute] {
                    guard let seconds = Double(interval), seconds.isFinite else {
                        throw ModelFileError.corrupt(location, "\(attribute) '\(interval)' is not a number")
                    }
                    date = Date(timeIntervalSinceReferenceDate: seconds)
                } else if let text = element[textAttribute] {
                    guard let parsed = Self.parseDate(text) else {
                        throw ModelFileError.corrupt(location, "\(textAttribute) '\(text)' is not a date")
                    }
                    date = parsed
                } else {
                    continue
                }
                try add("SELF \(comparison) %@", date, "\(word) date \(date)")
            }
        case .stringAttributeType, .binaryDataAttributeType, .URIAttributeType:
            for (attribute, comparison, word) in [("minValueString", ">=", "minimum"), ("maxValueString", "<=", "maximum")] {
                guard let text = element[attribute] else { continue }
                guard let length = Int(text), length >= 0 else {
                    throw ModelFileError.corrupt(location, "\(attribute) '\(text)' is not a length")
                }
                try add("length \(comparison) %@", NSNumber(value: length), "\(word) length \(length)")
            }
        default:
            guard type.isNumeric else { break }
            for (attribute, comparison, word) in [("minValueString", ">=", "minimum"), ("maxValueString", "<=", "maximum")] {
                guard let text = element[attribute] else { continue }
                guard let bound = Self.number(text, type: type) else {
                    throw ModelFileError.corrupt(location, "\(attribute) '\(text)' is not a number")
                }
                try add("SELF \(comparison) %@", bound, "\(word) value \(text)")
            }
        }
        if let pattern = nonEmpty(element["regularExpressionString"]) {
            try add("SELF MATCHES %@", pattern, "pattern \(pattern)")
        }
        return rules
    }

    /// A numeric bound as written: an integer when it is one, a decimal for Decimal attributes.
    static func number(_ text: String, type: NSAttributeType) -> NSNumber? {
        if type == .decimalAttributeType {
            guard let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), !value.isNaN else { return nil }
            return NSDecimalNumber(decimal: value)
        }
        if let integer = Int64(text) { return NSNumber(value: integer) }
        guard let value = Double(text), value.isFinite else { return nil }
        return NSNumber(value: value)
    }
}
