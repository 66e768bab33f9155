import Foundation

/// A validation predicate and the Core Data error code its failure maps to.
///
/// Apple's model editor stores min/max and pattern rules as predicates (`SELF >= 1`,
/// `length <= 20`, `SELF MATCHES "[a-z]+"`); a failure reports the specific code.
struct ValidationRule {
    let predicate: NSPredicate

    func accepts(_ value: Any?) -> Bool {
        predicate.evaluate(with: value)
    }

    func errorCode(for value: Any?, attributeType: NSAttributeType?) -> Int {
        guard case .comparison(let comparison) = predicate.node else { return NSManagedObjectValidationError }
        let op = comparison.operatorType
        if op == .matches || op == .like { return NSValidationStringPatternMatchingError }
        let path = comparison.left.selfKeyPath?.lowercased()
        let isLength = path == "length" || path == "self.length"
        let lowerBound = op == .greaterThanOrEqualTo || op == .greaterThan
        let upperBound = op == .lessThanOrEqualTo || op == .lessThan
        if isLength || value is String {
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
