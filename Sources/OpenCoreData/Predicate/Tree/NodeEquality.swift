import Foundation

// MARK: - NodeEquality

/// Structural equality and hashing of predicate and expression trees.
///
/// Callers pass canonical trees (see `PredicateNode.canonical`). Constants compare by value:
/// numbers of any type by their numeric value, so `YES` equals `1` as `@YES` equals `@1`.
package enum NodeEquality {
    /// Whether two predicate trees are equal.
    package static func equal(_ lhs: PredicateNode, _ rhs: PredicateNode) -> Bool {
        switch (lhs, rhs) {
        case (.constant(let left), .constant(let right)):
            return left == right
        case (.block(let left), .block(let right)):
            return left === right
        case (.compound(let leftKind, let leftChildren), .compound(let rightKind, let rightChildren)):
            return leftKind == rightKind && leftChildren.count == rightChildren.count
                && zip(leftChildren, rightChildren).allSatisfy { equal($0, $1) }
        case (.comparison(let left), .comparison(let right)):
            return left.operatorType == right.operatorType && left.modifier == right.modifier
                && left.options == right.options && left.customSelector == right.customSelector
                && equal(left.left, right.left) && equal(left.right, right.right)
        default:
            return false
        }
    }

    /// Whether two expression trees are equal.
    package static func equal(_ lhs: ExpressionNode, _ rhs: ExpressionNode) -> Bool {
        switch (lhs, rhs) {
        case (.constant(let left), .constant(let right)):
            return constantsEqual(left, right)
        case (.evaluatedObject, .evaluatedObject), (.anyKey, .anyKey):
            return true
        case (.variable(let left), .variable(let right)):
            return left == right
        case (.keyPath(let leftOperand, let leftPath), .keyPath(let rightOperand, let rightPath)):
            return leftPath == rightPath && equal(leftOperand, rightOperand)
        case (.function(let leftName, let leftArguments), .function(let rightName, let rightArguments)):
            return leftName == rightName && equal(leftArguments, rightArguments)
        case (.customFunction(let leftOperand, let leftSelector, let leftArguments),
              .customFunction(let rightOperand, let rightSelector, let rightArguments)):
            return leftSelector == rightSelector && equal(leftOperand, rightOperand) && equal(leftArguments, rightArguments)
        case (.aggregate(let left), .aggregate(let right)):
            return equal(left, right)
        case (.set(let leftOperation, let leftA, let leftB), .set(let rightOperation, let rightA, let rightB)):
            return leftOperation == rightOperation && equal(leftA, rightA) && equal(leftB, rightB)
        case (.subquery(let leftCollection, let leftVariable, let leftPredicate),
              .subquery(let rightCollection, let rightVariable, let rightPredicate)):
            return leftVariable == rightVariable && equal(leftCollection, rightCollection)
                && equal(leftPredicate, rightPredicate)
        case (.block(let leftBlock, let leftArguments), .block(let rightBlock, let rightArguments)):
            return leftBlock === rightBlock && equal(leftArguments, rightArguments)
        case (.conditional(let leftCondition, let leftTrue, let leftFalse),
              .conditional(let rightCondition, let rightTrue, let rightFalse)):
            return equal(leftCondition, rightCondition) && equal(leftTrue, rightTrue) && equal(leftFalse, rightFalse)
        case (.fetchRequest(let leftRequest, let leftContext, let leftCountOnly),
              .fetchRequest(let rightRequest, let rightContext, let rightCountOnly)):
            return leftCountOnly == rightCountOnly && equal(leftRequest, rightRequest) && equal(leftContext, rightContext)
        default:
            return false
        }
    }

    private static func equal(_ lhs: [ExpressionNode], _ rhs: [ExpressionNode]) -> Bool {
        lhs.count == rhs.count && zip(lhs, rhs).allSatisfy { equal($0, $1) }
    }

    /// Constant equality: by value for numbers, strings, dates, data, UUIDs, URLs; else `isEqual`.
    package static func constantsEqual(_ lhs: Any?, _ rhs: Any?) -> Bool {
        let lhs = PredicateValue.unwrap(lhs), rhs = PredicateValue.unwrap(rhs)
        guard let lhs, let rhs else { return lhs == nil && rhs == nil }
        if let left = lhs as? PredicateIndexSymbol { return left == rhs as? PredicateIndexSymbol }
        if rhs is PredicateIndexSymbol { return false }
        let leftIsNumber = PredicateNumber(lhs) != nil, rightIsNumber = PredicateNumber(rhs) != nil
        if leftIsNumber != rightIsNumber { return false }
        let leftIsString = PredicateValue.string(lhs) != nil, rightIsString = PredicateValue.string(rhs) != nil
        if leftIsString != rightIsString { return false }
        return ValueComparison.equal(lhs, rhs)
    }

    // MARK: - Hashing

    /// Feeds a predicate tree into a hasher, consistently with `equal`.
    package static func hash(_ node: PredicateNode, into hasher: inout Hasher) {
        switch node {
        case .constant(let value):
            hasher.combine(0)
            hasher.combine(value)
        case .block(let block):
            hasher.combine(1)
            hasher.combine(ObjectIdentifier(block))
        case .compound(let kind, let children):
            hasher.combine(2)
            hasher.combine(kind)
            for child in children { hash(child, into: &hasher) }
        case .comparison(let comparison):
            hasher.combine(3)
            hasher.combine(comparison.operatorType)
            hasher.combine(comparison.modifier)
            hasher.combine(comparison.options.rawValue)
            hash(comparison.left, into: &hasher)
            hash(comparison.right, into: &hasher)
        }
    }

    /// Feeds an expression tree into a hasher, consistently with `equal`.
    package static func hash(_ node: ExpressionNode, into hasher: inout Hasher) {
        switch node {
        case .constant(let value):
            hasher.combine(10)
            hashConstant(value, into: &hasher)
        case .evaluatedObject:
            hasher.combine(11)
        case .variable(let name):
            hasher.combine(12)
            hasher.combine(name)
        case .keyPath(let operand, let path):
            hasher.combine(13)
            hasher.combine(path)
            hash(operand, into: &hasher)
        case .function(let name, let arguments), .customFunction(_, let name, let arguments):
            hasher.combine(14)
            hasher.combine(name)
            for argument in arguments { hash(argument, into: &hasher) }
        case .aggregate(let elements):
            hasher.combine(15)
            for element in elements { hash(element, into: &hasher) }
        case .set(let operation, let lhs, let rhs):
            hasher.combine(16)
            hasher.combine(operation)
            hash(lhs, into: &hasher)
            hash(rhs, into: &hasher)
        case .subquery(let collection, let variable, let predicate):
            hasher.combine(17)
            hasher.combine(variable)
            hash(collection, into: &hasher)
            hash(predicate, into: &hasher)
        case .anyKey:
            hasher.combine(18)
        case .block(let block, _):
            hasher.combine(19)
            hasher.combine(ObjectIdentifier(block))
        case .conditional(let condition, let whenTrue, let whenFalse):
            hasher.combine(20)
            hash(condition, into: &hasher)
            hash(whenTrue, into: &hasher)
            hash(whenFalse, into: &hasher)
        case .fetchRequest(let request, let context, let countOnly):
            hasher.combine(21)
            hasher.combine(countOnly)
            hash(request, into: &hasher)
            hash(context, into: &hasher)
        }
    }

    private static func hashConstant(_ value: Any?, into hasher: inout Hasher) {
        guard let value = PredicateValue.unwrap(value) else {
            hasher.combine(0)
            return
        }
        if let number = PredicateNumber(value) {
            hasher.combine(1)
            hasher.combine(number.doubleValue)
        } else if let string = PredicateValue.string(value) {
            hasher.combine(2)
            hasher.combine(string)
        } else if let date = PredicateValue.date(value) {
            hasher.combine(3)
            hasher.combine(date)
        } else {
            hasher.combine(4)
        }
    }
}
