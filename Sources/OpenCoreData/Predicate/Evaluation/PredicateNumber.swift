import Foundation

// MARK: - PredicateNumber

/// A number read from any of the types Core Data and Swift use for numbers.
///
/// `NSNumber`, `Int`…`UInt64`, `Double`, `Float`, `Bool`, `Decimal` and `NSDecimalNumber`
/// all compare and compute as numbers, so `age > 3` works whatever type `age` has.
package enum PredicateNumber {
    case int(Int64)
    case uint(UInt64)
    case double(Double)
    case decimal(Decimal)

    /// Reads a number, or returns `nil` for non-numeric values (strings are not numbers).
    package init?(_ value: Any?) {
        guard let value else { return nil }
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber {
            self.init(number: number)
            return
        }
        switch value {
        case let int as Int: self = .int(Int64(int))
        case let double as Double: self = .double(double)
        case let bool as Bool: self = .int(bool ? 1 : 0)
        case let int as Int64: self = .int(int)
        case let int as Int32: self = .int(Int64(int))
        case let int as Int16: self = .int(Int64(int))
        case let int as Int8: self = .int(Int64(int))
        case let uint as UInt: self = Self.unsigned(UInt64(uint))
        case let uint as UInt64: self = Self.unsigned(uint)
        case let uint as UInt32: self = .int(Int64(uint))
        case let uint as UInt16: self = .int(Int64(uint))
        case let uint as UInt8: self = .int(Int64(uint))
        case let float as Float: self = .double(Double(float))
        case let float as CGFloat: self = .double(Double(float))
        case let decimal as Decimal: self = .decimal(decimal)
        default: return nil
        }
    }

    private init(number: NSNumber) {
        if let decimal = number as? NSDecimalNumber {
            self = .decimal(decimal.decimalValue)
            return
        }
        switch UInt8(bitPattern: number.objCType.pointee) {
        case UInt8(ascii: "f"), UInt8(ascii: "d"):
            self = .double(number.doubleValue)
        case UInt8(ascii: "Q"), UInt8(ascii: "L"):
            self = Self.unsigned(number.uint64Value)
        default:
            self = .int(number.int64Value)
        }
    }

    private static func unsigned(_ value: UInt64) -> PredicateNumber {
        value <= UInt64(Int64.max) ? .int(Int64(value)) : .uint(value)
    }

    // MARK: - Conversions

    /// The value as a `Double` (may round very large integers and decimals).
    ///
    /// A decimal becomes the double nearest its decimal spelling, the REAL a SQLite store keeps
    /// for it (`NSDecimalNumber.doubleValue` is off in the last bits for large exponents).
    package var doubleValue: Double {
        switch self {
        case .int(let value): Double(value)
        case .uint(let value): Double(value)
        case .double(let value): value
        case .decimal(let value): Self.double(from: value)
        }
    }

    /// The double nearest a decimal's value; NaN for a NaN decimal. Decimals reach about
    /// 3.4e165, so every finite one has a finite double.
    package static func double(from decimal: Decimal) -> Double {
        Double(decimal.description) ?? NSDecimalNumber(decimal: decimal).doubleValue
    }

    /// Whether the value is a NaN (a double, or a decimal), which predicates treat as nil.
    package var isNaN: Bool {
        switch self {
        case .int, .uint: false
        case .double(let value): value.isNaN
        case .decimal(let value): value.isNaN
        }
    }

    /// The value as a `Decimal`.
    package var decimalValue: Decimal {
        switch self {
        case .int(let value): Decimal(value)
        case .uint(let value): Decimal(value)
        case .double(let value): Decimal(value)
        case .decimal(let value): value
        }
    }

    /// The value as a Swift number (`Int`, `UInt64`, `Double` or `Decimal`).
    package var value: Any {
        switch self {
        case .int(let value): Int(value)
        case .uint(let value): value
        case .double(let value): value
        case .decimal(let value): value
        }
    }

    /// The value as an `Int64` when it is an integer that fits.
    package var int64Value: Int64? {
        switch self {
        case .int(let value): value
        case .uint(let value): Int64(exactly: value)
        case .double(let value): value.rounded() == value ? Int64(exactly: value) : nil
        case .decimal(let value): Int64(exactly: NSDecimalNumber(decimal: value).doubleValue)
        }
    }

    // MARK: - Comparison

    /// Orders two numbers by value, whatever their representation, as SQLite orders the values
    /// a store keeps for them: a decimal is the REAL the store writes (`doubleValue`), so
    /// `decimal > 1e308` is false as in SQL (a `Decimal` cannot hold 1e308); an integer and a
    /// double compare exactly, as SQLite compares INTEGER and REAL. NaN (never stored: SQLite
    /// makes it NULL) orders first here, but `ValueComparison` treats it as nil before this.
    package func compare(_ other: PredicateNumber) -> ComparisonResult {
        switch (self, other) {
        case (.int(let lhs), .int(let rhs)): return Self.order(lhs, rhs)
        case (.uint(let lhs), .uint(let rhs)): return Self.order(lhs, rhs)
        case (.int(let lhs), .uint(let rhs)): return lhs < 0 ? .orderedAscending : Self.order(UInt64(lhs), rhs)
        case (.uint(let lhs), .int(let rhs)): return rhs < 0 ? .orderedDescending : Self.order(lhs, UInt64(rhs))
        case (.int(let lhs), _):
            let order = Self.compare(other.doubleValue, lhs)
            return order == .orderedAscending ? .orderedDescending : (order == .orderedDescending ? .orderedAscending : .orderedSame)
        case (_, .int(let rhs)): return Self.compare(doubleValue, rhs)
        default:
            let lhs = doubleValue, rhs = other.doubleValue
            if lhs.isNaN || rhs.isNaN { return lhs.isNaN && rhs.isNaN ? .orderedSame : (lhs.isNaN ? .orderedAscending : .orderedDescending) }
            return Self.order(lhs, rhs)
        }
    }

    /// A double against an integer, exactly (no rounding of integers past 2^53), as SQLite does.
    private static func compare(_ double: Double, _ int: Int64) -> ComparisonResult {
        if double.isNaN { return .orderedAscending }
        // 2^63 is exact as a double; everything at or past it is beyond every Int64.
        if double >= 9_223_372_036_854_775_808.0 { return .orderedDescending }
        if double < -9_223_372_036_854_775_808.0 { return .orderedAscending }
        let whole = double.rounded(.towardZero)
        let order = Self.order(Int64(whole), int)
        if order != .orderedSame { return order }
        return Self.order(double, whole)
    }

    private static func order<T: Comparable>(_ lhs: T, _ rhs: T) -> ComparisonResult {
        lhs < rhs ? .orderedAscending : (lhs > rhs ? .orderedDescending : .orderedSame)
    }

    // MARK: - Arithmetic

    /// The four operations and friends; integers stay integers until they overflow.
    package enum Operation {
        case add, subtract, multiply, divide, modulus, power
    }

    /// Applies an arithmetic operation; `nil` for division by zero.
    package func applying(_ operation: Operation, _ other: PredicateNumber) -> PredicateNumber? {
        if case .int(let lhs) = self, case .int(let rhs) = other {
            switch operation {
            case .add: if case (let result, false) = lhs.addingReportingOverflow(rhs) { return .int(result) }
            case .subtract: if case (let result, false) = lhs.subtractingReportingOverflow(rhs) { return .int(result) }
            case .multiply: if case (let result, false) = lhs.multipliedReportingOverflow(by: rhs) { return .int(result) }
            case .modulus:
                guard rhs != 0 else { return nil }
                if case (let result, false) = lhs.remainderReportingOverflow(dividingBy: rhs) { return .int(result) }
            case .divide, .power: break
            }
        }
        if case .decimal = self, operation != .power { return applyingDecimal(operation, other) }
        if case .decimal = other, operation != .power { return applyingDecimal(operation, other) }
        let lhs = doubleValue, rhs = other.doubleValue
        switch operation {
        case .add: return .double(lhs + rhs)
        case .subtract: return .double(lhs - rhs)
        case .multiply: return .double(lhs * rhs)
        case .divide: return rhs == 0 ? nil : .double(lhs / rhs)
        case .modulus: return rhs == 0 ? nil : .double(lhs.truncatingRemainder(dividingBy: rhs))
        case .power:
            let result = Foundation.pow(lhs, rhs)
            if case .int = self, case .int = other, rhs >= 0, let exact = Int64(exactly: result) { return .int(exact) }
            return .double(result)
        }
    }

    /// Arithmetic as a predicate computes it, with a SQLite store's answer: decimals take part as
    /// the REALs the store keeps (SQL adds `0.1 + 0.2` as doubles), and a NaN result is nil, as
    /// SQLite turns NaN into NULL. Infinities stay (SQLite keeps them). Key-value coding's
    /// `@sum` of decimals keeps adding exactly (`applying`).
    package func applyingAsStored(_ operation: Operation, _ other: PredicateNumber) -> PredicateNumber? {
        let lhs = Self.stored(self), rhs = Self.stored(other)
        guard let result = lhs.applying(operation, rhs), !result.isNaN else { return nil }
        return result
    }

    /// A decimal as SQLite holds it: a REAL, which the column's NUMERIC affinity (Apple's
    /// `DECIMAL` columns) turns into an INTEGER when it is a whole number strictly inside
    /// `Int64`'s range, so `dec + 9007199254740992` adds integers exactly in SQL, as here.
    private static func stored(_ number: PredicateNumber) -> PredicateNumber {
        guard case .decimal = number else { return number }
        let double = number.doubleValue
        if double.rounded(.towardZero) == double, let int = Int64(exactly: double), int != .min, int != .max {
            return .int(int)
        }
        return .double(double)
    }

    private func applyingDecimal(_ operation: Operation, _ other: PredicateNumber) -> PredicateNumber? {
        let lhs = decimalValue, rhs = other.decimalValue
        switch operation {
        case .add: return .decimal(lhs + rhs)
        case .subtract: return .decimal(lhs - rhs)
        case .multiply: return .decimal(lhs * rhs)
        case .divide: return rhs == 0 ? nil : .decimal(lhs / rhs)
        case .modulus, .power: return PredicateNumber.double(doubleValue).applying(operation, .double(other.doubleValue))
        }
    }
}
