import Foundation

// MARK: - SQLPlanConstant

/// One constant of a fetch's predicate as a plan sees it: its value (managed objects replaced by
/// their IDs), how the lowering classifies it, and whether it may be bound again in a cached plan.
package struct SQLPlanConstant {
    /// The value, unwrapped; objects become their IDs and collections arrays of such values, so a
    /// cached plan keeps no managed object and compares only values.
    package let value: Any?
    package let classification: SQLConstant.Classification
    /// What the lowering branches on for this constant (its part of the shape's equality).
    private let bindsPlainly: Bool
    private let plainEqualityMatchesMemory: Bool
    /// Whether the constant is a whole side of a plain comparison whose other side reads the row,
    /// the one place the lowering binds a constant exactly as `classify` encodes it.
    package let isDirectOperand: Bool

    init(_ raw: Any?, dialect: any SQLDialect, isDirectOperand: Bool) {
        let classification = SQLConstant.classify(raw)
        self.classification = classification
        self.isDirectOperand = isDirectOperand
        switch classification {
        case .null:
            value = nil
            bindsPlainly = true
            plainEqualityMatchesMemory = true
        case .value(_, let bound):
            value = PredicateValue.unwrap(raw)
            bindsPlainly = dialect.bindsPlainly(bound)
            plainEqualityMatchesMemory = dialect.plainEqualityMatchesMemory(bound)
        case .objectID(let id):
            value = id
            bindsPlainly = true
            plainEqualityMatchesMemory = true
        case .collection(let elements):
            value = elements.map(Self.normalized)
            bindsPlainly = false
            plainEqualityMatchesMemory = false
        case .opaque:
            value = PredicateValue.unwrap(raw)
            bindsPlainly = false
            plainEqualityMatchesMemory = false
        }
    }

    /// A value as a plan keeps it: objects as their IDs, collections element by element.
    private static func normalized(_ raw: Any?) -> Any? {
        switch SQLConstant.classify(raw) {
        case .null: nil
        case .objectID(let id): id
        case .collection(let elements): elements.map(normalized)
        case .value, .opaque: PredicateValue.unwrap(raw)
        }
    }

    // MARK: - Signature

    /// Appends what the lowering decides from this constant without reading its exact value.
    func appendSignature(to numbers: inout [Int], names: inout [String]) {
        Self.appendSignature(of: classification, to: &numbers, names: &names)
        numbers += [bindsPlainly ? 1 : 0, plainEqualityMatchesMemory ? 1 : 0]
    }

    private static func appendSignature(of classification: SQLConstant.Classification, to numbers: inout [Int], names: inout [String]) {
        switch classification {
        case .null:
            numbers.append(0)
        case .value(let kind, _):
            numbers += [1, code(of: kind)]
        case .objectID(let id):
            numbers += [2, Int(bitPattern: ObjectIdentifier(id.entity)), id.isTemporaryID ? 1 : 0]
            names.append(id.storeIdentifier)
        case .collection(let elements):
            numbers += [3, elements.count]
            for element in elements { appendSignature(of: SQLConstant.classify(element), to: &numbers, names: &names) }
        case .opaque:
            numbers.append(4)
        }
    }

    private static func code(of kind: SQLValueKind) -> Int {
        switch kind {
        case .number(let isInteger): isInteger ? 1 : 2
        case .string: 3
        case .date: 4
        case .data: 5
        case .uuid: 6
        case .url: 7
        case .object: 8
        }
    }

    // MARK: - Binding again

    /// The value the lowering binds for this constant as a direct operand: the encoded value, or
    /// an object's primary key. Nil for constants a plan never binds again.
    package var boundValue: SQLValue? {
        guard isDirectOperand else { return nil }
        switch classification {
        case .value(_, let bound): return bindsPlainly ? bound : nil
        case .objectID(let id): return id.isTemporaryID ? nil : .integer(id.primaryKey)
        case .null, .collection, .opaque: return nil
        }
    }

    /// A different value of the same signature, unlikely to occur in a request, used to find
    /// where the lowering binds this constant (`SQLPlanTemplate`); nil when there is none.
    package func standIn(_ index: Int) -> Any? {
        guard boundValue != nil else { return nil }
        let tag = 0x0CD5_1A7E_0000 + index
        switch classification {
        case .value(let kind, _):
            switch kind {
            case .number(isInteger: true): return tag
            case .number(isInteger: false): return Double(tag) + 0.5
            case .string: return plainEqualityMatchesMemory ? "ocd.plan.stand-in.\(index)" : "ocd.plan.stand-in.\(index).\u{E9}"
            case .date: return Date(timeIntervalSinceReferenceDate: Double(tag))
            case .data: return Data("ocd.plan.stand-in.\(index)".utf8)
            case .uuid: return UUID(uuid: (0x0C, 0xD5, 0x1A, 0x7E, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, UInt8(index >> 8 & 0xFF), UInt8(index & 0xFF)))
            case .url: return URL(string: "ocd-plan-stand-in://\(index)")
            case .object: return nil
            }
        case .objectID(let id):
            guard let handle = id.storeHandle else { return nil }
            return NSManagedObjectID(entity: id.entity, primaryKey: Int64(tag), handle: handle)
        case .null, .collection, .opaque:
            return nil
        }
    }

    // MARK: - Equality of pinned values

    /// Whether two constants hold the same value exactly: same type, same bytes for strings.
    /// A plan pins constants it cannot bind again; it serves only requests where they are equal.
    package static func same(_ lhs: Any?, _ rhs: Any?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil):
            return true
        case (let left?, let right?):
            guard ObjectIdentifier(type(of: left)) == ObjectIdentifier(type(of: right)) else { return false }
            if let left = left as? String, let right = right as? String { return left.utf8.elementsEqual(right.utf8) }
            if let left = left as? [Any?], let right = right as? [Any?] {
                return left.count == right.count && zip(left, right).allSatisfy { same($0, $1) }
            }
            if let left = left as? AnyHashable, let right = right as? AnyHashable { return left == right }
            return false
        default:
            return false
        }
    }
}
