import Foundation

// MARK: - CollectionOperator

/// Key-value coding collection operators: `@count`, `@sum`, `@avg`, `@min`, `@max` and the unions.
///
/// See Apple's "Using Collection Operators" in the Key-Value Coding Programming Guide.
package enum CollectionOperator {
    /// Applies `name` (with its leading `@`) to `value`, reading `rest` from each element first.
    package static func apply(_ name: String, rest: String, to value: Any?) -> Any? {
        guard let value else { return nil }
        guard let elements = PredicateValue.elements(value) else {
            if name == "@count", let dictionary = PredicateValue.dictionaryValues(value) { return dictionary.count }
            return nil
        }
        let operands: [Any] = rest.isEmpty || rest == "self"
            ? elements.values.compactMap { PredicateValue.unwrap($0) }
            : elements.values.compactMap { KeyValueAccess.value(forKeyPath: rest, of: $0) }
        switch name {
        case "@count":
            return rest.isEmpty ? elements.values.count : operands.count
        case "@sum":
            return sum(operands)?.value ?? 0
        case "@avg":
            guard let total = sum(operands), !operands.isEmpty else { return nil }
            return total.applying(.divide, .int(Int64(operands.count)))?.value
        case "@min":
            return extreme(operands, keeping: .orderedAscending)
        case "@max":
            return extreme(operands, keeping: .orderedDescending)
        case "@unionOfObjects":
            return operands
        case "@distinctUnionOfObjects":
            return distinct(operands)
        case "@unionOfArrays", "@unionOfSets":
            return flatten(elements.values, rest: rest)
        case "@distinctUnionOfArrays", "@distinctUnionOfSets":
            return distinct(flatten(elements.values, rest: rest))
        default:
            return nil
        }
    }

    // MARK: - Helpers

    /// The sum of the numeric operands; `nil` when one is not a number.
    package static func sum(_ operands: [Any]) -> PredicateNumber? {
        var total = PredicateNumber.int(0)
        for operand in operands {
            guard let number = PredicateNumber(operand), let next = total.applying(.add, number) else { return nil }
            total = next
        }
        return total
    }

    /// The smallest (`.orderedAscending`) or largest operand; incomparable operands are skipped.
    package static func extreme(_ operands: [Any], keeping order: ComparisonResult) -> Any? {
        var best: Any?
        for operand in operands {
            guard let current = best else {
                best = operand
                continue
            }
            if ValueComparison.compare(operand, current) == order { best = operand }
        }
        return best
    }

    /// The operands without duplicates, in first-seen order, as an `NSSet` tells them apart:
    /// strings literally (both spellings of "café" stay), numbers by value (`DistinctValues`,
    /// which never hashes a value whose hashing is unsafe on the platform, such as a decimal).
    package static func distinct(_ operands: [Any]) -> [Any] {
        DistinctValues.of(operands)
    }

    private static func flatten(_ collections: [Any], rest: String) -> [Any] {
        collections.flatMap { collection -> [Any] in
            guard let inner = PredicateValue.elements(PredicateValue.unwrap(collection)) else { return [] }
            if rest.isEmpty { return inner.values }
            return inner.values.compactMap { KeyValueAccess.value(forKeyPath: rest, of: $0) }
        }
    }
}
