import Foundation

/// The statements of Apple's persistent-history tables, built once per dialect: `ATRANSACTION`
/// (one row per recorded transaction), `ACHANGE` (one row per changed object) and
/// `ATRANSACTIONSTRING` (author, bundle, context and process names, interned).
///
/// The table and index definitions are Apple's, text for text, as Apple-written stores hold them
/// (docs/StoreFormat.md, "Persistent history"). Every value is a bound parameter; the comment of
/// each statement lists them in order.
package struct SQLHistoryStatements: Sendable {
    /// `Z_PRIMARYKEY.Z_ENT` of the history entities, as Apple numbers them.
    package static let changeEntityNumber: Int64 = 16001
    package static let transactionEntityNumber: Int64 = 16002
    package static let stringEntityNumber: Int64 = 16003
    /// `Z_PRIMARYKEY.Z_NAME` of each history entity.
    package static let entityNames: [(number: Int64, name: String)] = [
        (changeEntityNumber, "CHANGE"), (transactionEntityNumber, "TRANSACTION"), (stringEntityNumber, "TRANSACTIONSTRING"),
    ]
    package static let changeTable = "ACHANGE"
    package static let transactionTable = "ATRANSACTION"
    package static let stringTable = "ATRANSACTIONSTRING"

    /// The three `CREATE TABLE` and eleven `CREATE INDEX` statements, in Apple's order.
    package let creationStatements: [String]
    /// Z_PK, Z_ENT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP (Z_OPT and
    /// the plain string columns stay NULL, as Apple leaves them).
    package let insertTransaction: String
    /// Z_PK, Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS.
    package let insertChange: String
    /// Z_PK, Z_ENT, ZNAME.
    package let insertString: String
    /// ZNAME → Z_PK.
    package let selectString: String
    /// No parameters: the lowest transaction number still stored (NULL when there is none).
    package let selectFirstTransaction: String
    /// No parameters: the highest transaction number still stored (NULL when there is none).
    package let selectLastTransaction: String

    private let dialect: any SQLDialect

    package init(dialect: any SQLDialect) {
        self.dialect = dialect
        let change = SQLCreateTable(Self.changeTable, columns: [
            .init("Z_PK", .integer, isPrimaryKey: true), .init("Z_ENT", .integer), .init("Z_OPT", .integer),
            .init("ZCHANGETYPE", .integer), .init("ZENTITY", .integer), .init("ZENTITYPK", .integer),
            .init("ZTRANSACTIONID", .integer), .init("ZCOLUMNS", .blob),
        ])
        let transaction = SQLCreateTable(Self.transactionTable, columns: [
            .init("Z_PK", .integer, isPrimaryKey: true), .init("Z_ENT", .integer), .init("Z_OPT", .integer),
            .init("ZAUTHORTS", .integer), .init("ZBUNDLEIDTS", .integer), .init("ZCONTEXTNAMETS", .integer),
            .init("ZPROCESSIDTS", .integer), .init("ZTIMESTAMP", .float), .init("ZAUTHOR", .varchar),
            .init("ZBUNDLEID", .varchar), .init("ZCONTEXTNAME", .varchar), .init("ZPROCESSID", .varchar),
            .init("ZQUERYGEN", .blob),
        ])
        let string = SQLCreateTable(Self.stringTable, columns: [
            .init("Z_PK", .integer, isPrimaryKey: true), .init("Z_ENT", .integer), .init("Z_OPT", .integer), .init("ZNAME", .varchar),
        ])
        let binaryAscending = { (column: String) in SQLCreateIndex.Element(column, collation: .binary, ascending: true) }
        let indexes = [
            SQLCreateIndex("ACHANGE_ZTRANSACTIONID_INDEX", on: Self.changeTable, [.init("ZTRANSACTIONID")]),
            SQLCreateIndex("ATRANSACTION_ZAUTHORTS_INDEX", on: Self.transactionTable, [.init("ZAUTHORTS")]),
            SQLCreateIndex("ATRANSACTION_ZBUNDLEIDTS_INDEX", on: Self.transactionTable, [.init("ZBUNDLEIDTS")]),
            SQLCreateIndex("ATRANSACTION_ZCONTEXTNAMETS_INDEX", on: Self.transactionTable, [.init("ZCONTEXTNAMETS")]),
            SQLCreateIndex("ATRANSACTION_ZPROCESSIDTS_INDEX", on: Self.transactionTable, [.init("ZPROCESSIDTS")]),
            SQLCreateIndex("Z_TRANSACTION_TransactionAuthorIndex", on: Self.transactionTable, [binaryAscending("ZAUTHOR")]),
            SQLCreateIndex("Z_TRANSACTION_TransactionTimestampIndex", on: Self.transactionTable, [binaryAscending("ZTIMESTAMP")]),
            SQLCreateIndex("Z_TRANSACTIONSTRING_UNIQUE_NAME", on: Self.stringTable, [binaryAscending("ZNAME")], unique: true),
        ]
        creationStatements = [change, transaction, string].map { $0.sql(in: dialect) } + indexes.map { $0.sql(in: dialect) }

        insertTransaction = SQLInsert(into: Self.transactionTable, columns: [
            "Z_PK", "Z_ENT", "ZAUTHORTS", "ZBUNDLEIDTS", "ZCONTEXTNAMETS", "ZPROCESSIDTS", "ZTIMESTAMP",
        ]).sql(in: dialect)
        insertChange = SQLInsert(into: Self.changeTable, columns: [
            "Z_PK", "Z_ENT", "ZCHANGETYPE", "ZENTITY", "ZENTITYPK", "ZTRANSACTIONID", "ZCOLUMNS",
        ]).sql(in: dialect)
        insertString = SQLInsert(into: Self.stringTable, columns: ["Z_PK", "Z_ENT", "ZNAME"]).sql(in: dialect)
        var select = SQLSelect(from: dialect.identifier(Self.stringTable))
        select.columns = [dialect.identifier("Z_PK")]
        select.conditions = [dialect.equalsParameter("ZNAME")]
        selectString = select.render(in: dialect).sql(in: dialect)
        var first = SQLSelect(from: dialect.identifier(Self.transactionTable))
        first.columns = [SQLFragment("MIN(" + dialect.quote("Z_PK") + ")")]
        selectFirstTransaction = first.render(in: dialect).sql(in: dialect)
        var last = SQLSelect(from: dialect.identifier(Self.transactionTable))
        last.columns = [SQLFragment("MAX(" + dialect.quote("Z_PK") + ")")]
        selectLastTransaction = last.render(in: dialect).sql(in: dialect)
    }

    // MARK: - Reading

    /// The alias of `ATRANSACTION` in `selectTransactions`, for conditions on its columns.
    package static let transactionAlias = "t"
    /// The alias of `ACHANGE` in `selectChanges`.
    package static let changeAlias = "c"

    /// The string a `…TS` column points to, or the plain column when it is NULL (Apple fills
    /// the interned one; the plain one is read in case another writer filled it instead).
    package func stringColumn(_ column: String) -> SQLFragment {
        let t = Self.transactionAlias
        var inner = SQLSelect(from: dialect.identifier(Self.stringTable))
        inner.columns = [dialect.identifier("ZNAME")]
        inner.conditions = [SQLFragment(dialect.quote("Z_PK") + " = ") + dialect.column(column + "TS", of: t)]
        return "COALESCE((" + inner.render(in: dialect) + "), " + dialect.column(column, of: t) + ")"
    }

    /// Transactions in number order: Z_PK, ZTIMESTAMP, author, bundle ID, context name, process
    /// ID, for the rows the conditions (on alias `t`) select, paged.
    package func selectTransactions(where conditions: [SQLFragment], limit: Int, offset: Int) -> SQLFragment {
        let t = Self.transactionAlias
        var select = SQLSelect(from: dialect.identifier(Self.transactionTable) + " " + dialect.quote(t))
        select.columns = [dialect.column("Z_PK", of: t), dialect.column("ZTIMESTAMP", of: t),
                          stringColumn("ZAUTHOR"), stringColumn("ZBUNDLEID"), stringColumn("ZCONTEXTNAME"), stringColumn("ZPROCESSID")]
        select.conditions = conditions
        select.orderBy = [dialect.column("Z_PK", of: t)]
        select.limit = limit
        select.offset = offset
        return select.render(in: dialect)
    }

    /// The changes of the transactions numbered `first…last`, by transaction then change:
    /// Z_PK, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS.
    package func selectChanges(first: Int64, last: Int64, where conditions: [SQLFragment]) -> SQLFragment {
        let c = Self.changeAlias
        var select = SQLSelect(from: dialect.identifier(Self.changeTable) + " " + dialect.quote(c))
        select.columns = ["Z_PK", "ZCHANGETYPE", "ZENTITY", "ZENTITYPK", "ZTRANSACTIONID", "ZCOLUMNS"].map { dialect.column($0, of: c) }
        let transaction = dialect.column("ZTRANSACTIONID", of: c)
        select.conditions = [transaction + " >= " + dialect.parameter(.integer(first)),
                             transaction + " <= " + dialect.parameter(.integer(last))] + conditions
        select.orderBy = [transaction, dialect.column("Z_PK", of: c)]
        return select.render(in: dialect)
    }

    // MARK: - Deleting

    /// Deletes the changes of the transactions the conditions (on alias `t`) select.
    package func deleteChanges(ofTransactionsWhere conditions: [SQLFragment]) -> SQLFragment {
        let t = Self.transactionAlias
        var inner = SQLSelect(from: dialect.identifier(Self.transactionTable) + " " + dialect.quote(t))
        inner.columns = [dialect.column("Z_PK", of: t)]
        inner.conditions = conditions
        return "DELETE FROM " + dialect.identifier(Self.changeTable) + " WHERE " + dialect.identifier("ZTRANSACTIONID")
            + " IN (" + inner.render(in: dialect) + ")"
    }

    /// Deletes the transactions the conditions (on alias `t`) select.
    package func deleteTransactions(where conditions: [SQLFragment]) -> SQLFragment {
        let t = Self.transactionAlias
        var inner = SQLSelect(from: dialect.identifier(Self.transactionTable) + " " + dialect.quote(t))
        inner.columns = [dialect.column("Z_PK", of: t)]
        inner.conditions = conditions
        return "DELETE FROM " + dialect.identifier(Self.transactionTable) + " WHERE " + dialect.identifier("Z_PK")
            + " IN (" + inner.render(in: dialect) + ")"
    }
}
