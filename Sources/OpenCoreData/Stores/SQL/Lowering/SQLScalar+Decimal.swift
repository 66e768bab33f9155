import Foundation

// MARK: - SQLScalar: decimal columns

extension SQLScalar {
    /// Whether the value is a decimal attribute's column, which SQL holds as a REAL.
    ///
    /// Memory adds decimals exactly (`@sum`, `sum:` of `NSDecimalNumber`s stay decimals, as
    /// key-value coding returns them), while SQL would add the REALs and round: such sums and
    /// averages stay in memory, as they do for dictionary results.
    package var holdsDecimals: Bool {
        attribute?.attributeType == .decimalAttributeType
    }

    /// Why a sum or average of decimals is not lowered.
    package static func decimalSumReason(_ name: String, _ path: String) -> String {
        "'\(name)' of decimals\(path.isEmpty ? "" : " in '\(path)'") adds them exactly in memory; SQL would add doubles"
    }
}
