import Foundation
import GRDB

// MARK: - The SQL layer's values as GRDB values

/// The SQL layer's bound values are converted to GRDB's once, when a statement's arguments are
/// built (`SQLFragment.statementArguments`): `StatementArguments` maps them through
/// `databaseValue` into the one array it keeps, as it did GRDB values.
extension SQLValue: DatabaseValueConvertible {
    /// GRDB's value for this value.
    @inline(__always)
    package var databaseValue: DatabaseValue {
        switch self {
        case .null: return .null
        case .integer(let int): return int.databaseValue
        case .real(let double): return double.databaseValue
        case .text(let string): return string.databaseValue
        case .blob(let data): return data.databaseValue
        }
    }

    /// The value of a GRDB value (every storage class has one).
    package static func fromDatabaseValue(_ dbValue: DatabaseValue) -> SQLValue? {
        switch dbValue.storage {
        case .null: return .null
        case .int64(let int): return .integer(int)
        case .double(let double): return .real(double)
        case .string(let string): return .text(string)
        case .blob(let data): return .blob(data)
        }
    }
}

extension SQLFragment {
    /// The fragment's bound values as GRDB arguments, in placeholder order.
    package var statementArguments: StatementArguments { StatementArguments(arguments) }
}
