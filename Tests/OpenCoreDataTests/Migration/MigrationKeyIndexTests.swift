import Testing
@testable import OpenCoreData

/// The index the migration manager keeps its associations in: bisection while keys arrive in
/// order, a dictionary once one does not; the same answers either way.
@Suite("Migration association index")
struct MigrationKeyIndexTests {
    static func key(_ primaryKey: Int64, entity: Int32 = 0) -> MigrationObjectKey {
        MigrationObjectKey(entity: entity, primaryKey: primaryKey)
    }

    static func build(_ keys: [MigrationObjectKey]) -> (MigrationKeyIndex, [MigrationObjectKey]) {
        var index = MigrationKeyIndex()
        var column: [MigrationObjectKey] = []
        for key in keys {
            column.append(key)
            index.append(key, row: column.count - 1, column: column)
        }
        return (index, column)
    }

    @Test("Keys in ascending order (repeats allowed, entities ordered within one key) are found by bisection")
    func ascending() {
        let keys = [Self.key(1), Self.key(2), Self.key(2), Self.key(3, entity: 0), Self.key(3, entity: 1), Self.key(9)]
        let (index, column) = Self.build(keys)
        #expect(index.isAscending)
        #expect(index.rows(of: Self.key(2), in: column) == [1, 2])
        #expect(index.rows(of: Self.key(3, entity: 1), in: column) == [4])
        #expect(index.rows(of: Self.key(9), in: column) == [5])
        #expect(index.rows(of: Self.key(4), in: column).isEmpty)
        #expect(index.rows(of: Self.key(0), in: column).isEmpty)
    }

    @Test("A key out of order switches to the dictionary and every earlier and later row is still found")
    func outOfOrder() {
        let keys = [Self.key(5), Self.key(7), Self.key(3), Self.key(7), Self.key(8), Self.key(1)]
        let (index, column) = Self.build(keys)
        #expect(!index.isAscending)
        #expect(index.rows(of: Self.key(5), in: column) == [0])
        #expect(index.rows(of: Self.key(7), in: column) == [1, 3])
        #expect(index.rows(of: Self.key(3), in: column) == [2])
        #expect(index.rows(of: Self.key(1), in: column) == [5])
        #expect(index.rows(of: Self.key(2), in: column).isEmpty)
    }
}
