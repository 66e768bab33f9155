import Foundation

/// A validation predicate and the Core Data error code its failure maps to.
///
/// Apple's model editor stores min/max and pattern rules as predicates (`SELF >= 1`,
/// `length <= 20`, `SELF MATCHES "[a-z]+"`); a failure reports the specific code. The shape is
/// read from the predicate's format, which every predicate prints.
struct ValidationRule {
    let predicate: NSPredicate

    func accepts(_ value: Any?) -> Bool {
        predicate.evaluate(with: value)
    }

    func errorCode(for value: Any?, attributeType: NSAttributeType?) -> Int {
        let format = predicate.predicateFormat.trimmingCharacters(in: .whitespaces)
        let upper = format.uppercased()
        if upper.contains(" MATCHES") || upper.contains(" LIKE") { return NSValidationStringPatternMatchingError }
        let isLength = upper.hasPrefix("LENGTH") || upper.hasPrefix("SELF.LENGTH")
        let lowerBound = format.contains(">")
        let upperBound = format.contains("<")
        if isLength {
            if lowerBound { return NSValidationStringTooShortError }
            if upperBound { return NSValidationStringTooLongError }
        }
        if value is Date || attributeType == .dateAttributeType {
            if lowerBound { return NSValidationDateTooSoonError }
            if upperBound { return NSValidationDateTooLateError }
        }
        if lowerBound { return NSValidationNumberTooSmallError }
        if upperBound { return NSValidationNumberTooLargeError }
        return NSManagedObjectValidationError
    }
}
