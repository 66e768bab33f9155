import Foundation

// MARK: - SQLPlanTemplate

/// A fetch's SQL made once for its shape (`SQLPlanShape`): the statement text, its bound values
/// with the positions where the request's constants go, and the constants it serves only when
/// they are equal ("pinned").
///
/// How the positions are found: the lowering runs a second time with each rebindable constant
/// replaced by a stand-in of the same signature. Where the two runs bind different values, the
/// value must be the constant's own encoding in one run and its stand-in's in the other; then
/// the position is the constant's slot. Anything else (different text, a value that changed
/// some other way) pins every constant, and the plan serves only equal requests. A constant
/// whose stand-in appears nowhere stays pinned: the lowering read its value rather than bound it.
///
/// `@unchecked Sendable`: the pinned values are copied out of an immutable predicate, objects
/// replaced by their (Sendable) IDs, and are only read, to compare.
package struct SQLPlanTemplate: @unchecked Sendable {
    /// What a cached plan gives for a request.
    package enum Statement {
        /// The request's statement, its constants bound.
        case sql(SQLFragment)
        /// The request has no SQL form; the store evaluates it in memory.
        case notInSQL
    }

    /// The statement made for the first request of the shape; nil when it had no SQL form.
    private let sql: SQLFragment?
    /// Argument positions and the constants (walk order) bound there.
    private let slots: [(position: Int, constant: Int)]
    /// Constants (walk order) that must equal these values.
    private let pinned: [(constant: Int, value: Any?)]

    private init(sql: SQLFragment?, slots: [(position: Int, constant: Int)], pinned: [(constant: Int, value: Any?)]) {
        self.sql = sql
        self.slots = slots
        self.pinned = pinned
    }

    /// The template of `query`, whose statement is `sql` (nil when it has no SQL form);
    /// `lower` makes the statement of a query of the same kind (nil when it has none).
    package init(shape: SQLPlanShape, query: SQLFetchQuery, sql: SQLFragment?, dialect: any SQLDialect,
                 lower: (SQLFetchQuery) -> SQLFragment?) {
        let constants = shape.constants
        let pinnedAll = constants.indices.map { (constant: $0, value: constants[$0].value) }
        guard let sql else {
            self.init(sql: nil, slots: [], pinned: pinnedAll)
            return
        }
        var standIns: [Int: Any] = [:]
        var standInValues: [Int: SQLValue] = [:]
        for (index, constant) in constants.enumerated() {
            guard let standIn = constant.standIn(index),
                  let bound = SQLPlanConstant(standIn, dialect: dialect, isDirectOperand: true).boundValue else { continue }
            standIns[index] = standIn
            standInValues[index] = bound
        }
        guard !standIns.isEmpty, let other = lower(SQLPlanShape.substituting(standIns, in: query)),
              other.text == sql.text, other.arguments.count == sql.arguments.count,
              let slots = Self.slots(sql.arguments, other.arguments, constants, standInValues) else {
            self.init(sql: sql, slots: [], pinned: pinnedAll)
            return
        }
        let slotted = Set(slots.map(\.constant))
        self.init(sql: sql, slots: slots, pinned: pinnedAll.filter { !slotted.contains($0.constant) })
    }

    /// The slots where two runs' arguments differ, or nil when a difference is not a constant's.
    private static func slots(_ arguments: [SQLValue], _ standInArguments: [SQLValue], _ constants: [SQLPlanConstant],
                              _ standInValues: [Int: SQLValue]) -> [(position: Int, constant: Int)]? {
        var slots: [(position: Int, constant: Int)] = []
        for position in arguments.indices where arguments[position] != standInArguments[position] {
            let owners = standInValues.filter { $0.value == standInArguments[position] }.map(\.key)
            guard owners.count == 1, let owner = owners.first, constants[owner].boundValue == arguments[position] else { return nil }
            slots.append((position, owner))
        }
        return slots
    }

    /// The statement for a request of the template's shape, or nil when a pinned constant differs.
    package func statement(for constants: [SQLPlanConstant]) -> Statement? {
        guard constants.count > (pinned.last?.constant ?? -1) else { return nil }
        for (index, value) in pinned where !SQLPlanConstant.same(constants[index].value, value) { return nil }
        guard let sql else { return .notInSQL }
        if slots.isEmpty { return .sql(sql) }
        var arguments = sql.arguments
        for (position, index) in slots {
            guard index < constants.count, let value = constants[index].boundValue else { return nil }
            arguments[position] = value
        }
        return .sql(SQLFragment(sql.text, arguments: arguments))
    }
}
