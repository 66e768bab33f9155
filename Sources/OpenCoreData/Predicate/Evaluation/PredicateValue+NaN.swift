import Foundation

// MARK: - PredicateValue: NaN is nil

extension PredicateValue {
    /// `unwrap`, and a NaN number (a `Double`, `Float`, `Decimal` or `NSNumber` holding one)
    /// as nil.
    ///
    /// SQLite cannot hold a NaN: binding one, or a function or an operator that computes one
    /// (`0 * 1e999`, `raise:toPower:(-8, 0.5)`), gives NULL. So in every comparison a NaN is
    /// what a store would have: nil (`x == nil` is true for it, and it orders against nothing).
    /// Only floating-point types are looked at, by their exact type, so integers and strings
    /// pay one metatype check.
    package static func unwrapNumber(_ value: Any?) -> Any? {
        guard let value = unwrap(value) else { return nil }
        let type = type(of: value)
        if type == Double.self, let double = value as? Double { return double.isNaN ? nil : value }
        if type == Float.self, let float = value as? Float { return float.isNaN ? nil : value }
        if type == Decimal.self, let decimal = value as? Decimal { return decimal.isNaN ? nil : value }
        if type is NSNumber.Type, let number = PredicateNumber(value) { return number.isNaN ? nil : value }
        return value
    }
}
