import Foundation

// MARK: - FunctionEvaluator

/// Evaluates Apple's predefined `NSExpression` functions.
///
/// Unknown functions, wrong argument types and division by zero give `nil` instead of raising.
package enum FunctionEvaluator {
    /// Calls the function `name` with evaluated arguments.
    package static func call(_ name: String, _ arguments: [Any?]) -> Any? {
        let first = arguments.first.flatMap { $0 }
        let second = arguments.count > 1 ? arguments[1] : nil
        switch name {
        case "add:to:": return arithmetic(.add, first, second)
        case "from:subtract:": return arithmetic(.subtract, first, second)
        case "multiply:by:": return arithmetic(.multiply, first, second)
        case "divide:by:": return arithmetic(.divide, first, second)
        case "modulus:by:": return arithmetic(.modulus, first, second)
        case "raise:toPower:": return arithmetic(.power, first, second)
        case "now": return Date()
        case "random": return Double.random(in: 0..<1)
        case "random:": return numbers(first).randomElement()?.value
        case "lowercase:": return PredicateValue.string(first)?.lowercased()
        case "uppercase:": return PredicateValue.string(first)?.uppercased()
        case "canonical:":
            // Case- and diacritic-folded, as Apple's derived "search name" attributes use it.
            return PredicateValue.string(first)?.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        case "noindex:": return first
        case BuiltinFunction.castFunction:
            guard let typeName = PredicateValue.string(second) else { return nil }
            return PredicateValue.cast(first, to: typeName)
        case BuiltinFunction.indexFunction:
            return element(of: first, at: second)
        default:
            if let statistic = statistic(name, first) { return statistic }
            return math(name, first, second)
        }
    }

    // MARK: - Arithmetic

    private static func arithmetic(_ operation: PredicateNumber.Operation, _ lhs: Any?, _ rhs: Any?) -> Any? {
        if operation == .add || operation == .subtract,
           let date = PredicateValue.date(lhs), let interval = PredicateNumber(rhs)?.doubleValue {
            return date.addingTimeInterval(operation == .add ? interval : -interval)
        }
        guard let left = PredicateNumber(lhs), let right = PredicateNumber(rhs) else { return nil }
        return left.applyingAsStored(operation, right)?.value
    }

    private static func math(_ name: String, _ value: Any?, _ other: Any?) -> Any? {
        guard let number = PredicateNumber(value) else { return nil }
        let double = number.doubleValue
        switch name {
        case "abs:":
            if case .int(let int) = number, int != .min { return Int(abs(int)) }
            return Swift.abs(double)
        case "sqrt:": return double < 0 ? nil : double.squareRoot()
        case "log:": return double <= 0 ? nil : Foundation.log10(double)
        case "ln:": return double <= 0 ? nil : Foundation.log(double)
        case "exp:": return Foundation.exp(double)
        case "ceiling:": return double.rounded(.up)
        case "floor:": return double.rounded(.down)
        case "trunc:": return double.rounded(.towardZero)
        default: break
        }
        guard let lhs = number.int64Value else { return nil }
        if name == "onesComplement:" { return Int(~lhs) }
        guard let rhs = PredicateNumber(other)?.int64Value else { return nil }
        switch name {
        case "bitwiseAnd:with:": return Int(lhs & rhs)
        case "bitwiseOr:with:": return Int(lhs | rhs)
        case "bitwiseXor:with:": return Int(lhs ^ rhs)
        case "leftshift:by:": return Int(lhs << rhs)
        case "rightshift:by:": return Int(lhs >> rhs)
        default: return nil
        }
    }

    // MARK: - Statistics

    private static func numbers(_ value: Any?) -> [PredicateNumber] {
        guard let elements = PredicateValue.elements(value) else {
            return PredicateNumber(value).map { [$0] } ?? []
        }
        return elements.values.compactMap { PredicateNumber(PredicateValue.unwrap($0)) }
    }

    private static func statistic(_ name: String, _ value: Any?) -> Any? {
        switch name {
        case "count:":
            return PredicateValue.elements(value)?.values.count ?? (value == nil ? 0 : 1)
        case "sum:":
            return CollectionOperator.sum(numbers(value).map(\.value))?.value
        case "average:":
            let values = numbers(value)
            guard !values.isEmpty else { return nil }
            return values.reduce(0.0) { $0 + $1.doubleValue } / Double(values.count)
        case "min:", "max:":
            let values = PredicateValue.elements(value)?.values.compactMap { PredicateValue.unwrap($0) } ?? []
            return CollectionOperator.extreme(values, keeping: name == "min:" ? .orderedAscending : .orderedDescending)
        case "median:":
            let values = numbers(value).map(\.doubleValue).sorted()
            guard !values.isEmpty else { return nil }
            let middle = values.count / 2
            return values.count % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2
        case "mode:":
            let values = numbers(value).map(\.doubleValue)
            var counts: [Double: Int] = [:]
            for value in values { counts[value, default: 0] += 1 }
            let top = counts.values.max() ?? 0
            return values.filter { counts[$0] == top }.reduce(into: [Double]()) { if !$0.contains($1) { $0.append($1) } }
        case "stddev:":
            let values = numbers(value).map(\.doubleValue)
            guard !values.isEmpty else { return nil }
            let mean = values.reduce(0, +) / Double(values.count)
            let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)
            return variance.squareRoot()
        default:
            return nil
        }
    }

    // MARK: - Indexing

    /// `collection[index]`. A set of managed objects (an unordered to-many) is indexed in the
    /// order of its objects' primary keys, the order the SQLite store uses for the same subscript,
    /// so both stores pick the same member (Apple defines no order; docs/Deviations.md).
    private static func element(of collection: Any?, at index: Any?) -> Any? {
        if let symbol = index as? PredicateIndexSymbol {
            guard let values = positionalElements(collection) else { return nil }
            switch symbol {
            case .first: return values.first.flatMap { PredicateValue.unwrap($0) }
            case .last: return values.last.flatMap { PredicateValue.unwrap($0) }
            case .size: return values.count
            }
        }
        if let key = PredicateValue.string(index) {
            return KeyValueAccess.value(forKey: key, of: collection)
        }
        guard let position = PredicateNumber(index)?.int64Value,
              let values = positionalElements(collection),
              position >= 0, position < values.count else { return nil }
        return PredicateValue.unwrap(values[Int(position)])
    }

    /// The elements of a collection in the order a subscript counts them: an unordered collection
    /// of managed objects sorted by primary key (temporary IDs, numbered in creation order, after
    /// permanent ones), anything else as it iterates.
    private static func positionalElements(_ collection: Any?) -> [Any]? {
        guard let elements = PredicateValue.elements(collection) else { return nil }
        guard elements.isUnordered else { return elements.values }
        var objects: [NSManagedObject] = []
        objects.reserveCapacity(elements.values.count)
        for value in elements.values {
            guard let object = value as? NSManagedObject else { return elements.values }
            objects.append(object)
        }
        return objects.sorted { lhs, rhs in
            let left = lhs.objectID, right = rhs.objectID
            if left.isTemporaryID != right.isTemporaryID { return !left.isTemporaryID }
            return left.primaryKey < right.primaryKey
        }
    }
}
