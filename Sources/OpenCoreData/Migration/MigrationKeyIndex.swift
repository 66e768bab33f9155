/// Finds the rows of a column of migration keys kept in row order, without a hash table in the
/// usual case.
///
/// A migration appends keys in the order it reads or makes objects, and that is nearly always
/// ascending: source rows are read in primary-key order and new rows get increasing keys. While
/// it is, lookups bisect the column itself, so the index costs nothing beyond the column. The
/// first key out of order switches the index to a dictionary built over every row so far
/// (what a million rows cost before this type: about 60 bytes a row per direction).
struct MigrationKeyIndex {
    /// Whether every key so far is greater than (or, with duplicates allowed, equal to) the one before.
    private(set) var isAscending = true
    private var lastKey: MigrationObjectKey?
    /// The first row of each key, once the keys are out of order.
    private var firstRow: [MigrationObjectKey: Int32] = [:]
    /// Further rows of a key that has several, once the keys are out of order.
    private var moreRows: [MigrationObjectKey: [Int32]] = [:]

    /// Records that `column[row] == key`, where `row` is the column's last row.
    mutating func append(_ key: MigrationObjectKey, row: Int, column: [MigrationObjectKey]) {
        if isAscending {
            if let lastKey, key < lastKey {
                isAscending = false
                for (earlier, value) in column.enumerated() where earlier < row { record(value, row: earlier) }
                record(key, row: row)
            } else {
                lastKey = key
            }
        } else {
            record(key, row: row)
        }
    }

    private mutating func record(_ key: MigrationObjectKey, row: Int) {
        if firstRow[key] == nil {
            firstRow[key] = Int32(truncatingIfNeeded: row)
        } else {
            moreRows[key, default: []].append(Int32(truncatingIfNeeded: row))
        }
    }

    /// The rows of `column` holding `key`, in row order.
    func rows(of key: MigrationObjectKey, in column: [MigrationObjectKey]) -> [Int] {
        guard isAscending else {
            guard let first = firstRow[key] else { return [] }
            return [Int(first)] + (moreRows[key] ?? []).map(Int.init)
        }
        var low = 0
        var high = column.count
        while low < high {
            let middle = (low + high) / 2
            if column[middle] < key { low = middle + 1 } else { high = middle }
        }
        var rows: [Int] = []
        while low < column.count, column[low] == key {
            rows.append(low)
            low += 1
        }
        return rows
    }
}
