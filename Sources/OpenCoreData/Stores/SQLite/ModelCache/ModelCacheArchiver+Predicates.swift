import Foundation

// MARK: - Predicates and expressions

/// Predicates and expressions in Apple's archived form (validation rules, fetched properties,
/// fetch request templates, derivations, partial indexes), the shapes `ArchivedPredicateFormatter`
/// reads: `NSComparisonPredicate` with an operator object, `NSCompoundPredicate`, and the
/// expression classes by `NSExpressionType`. A tree with a shape that has no archived form here
/// (a block, a subquery, a set operation) gives nil; the caller logs and leaves it out.
extension ModelCacheEncoder {
    static let expressionBase = ["NSExpression", "NSObject"]
    static let functionClasses = ["NSFunctionExpression", "NSExpression", "NSObject"]
    static let keyPathClasses = ["NSKeyPathExpression", "NSFunctionExpression", "NSExpression", "NSObject"]
    /// How deep predicates and expressions may nest (as the reader's limit).
    static let maximumPredicateDepth = 64

    func predicate(_ node: PredicateNode, depth: Int = 0) -> PropertyListValue? {
        guard depth < Self.maximumPredicateDepth else { return nil }
        switch node {
        case .constant(let value):
            return writer.object(classes: [value ? "NSTruePredicate" : "NSFalsePredicate", "NSPredicate", "NSObject"], fields: [])
        case .compound(let kind, let children):
            var archived: [PropertyListValue] = []
            for child in children {
                guard let element = predicate(child, depth: depth + 1) else { return nil }
                archived.append(element)
            }
            return writer.object(classes: ["NSCompoundPredicate", "NSPredicate", "NSObject"], fields: [
                ("NSCompoundPredicateType", .integer(Int64(kind.rawValue))),
                ("NSSubpredicates", writer.array(archived)),
            ])
        case .comparison(let comparison):
            guard let left = expression(comparison.left, depth: depth + 1),
                  let right = expression(comparison.right, depth: depth + 1) else { return nil }
            return writer.object(classes: ["NSComparisonPredicate", "NSPredicate", "NSObject"], fields: [
                ("NSLeftExpression", left),
                ("NSRightExpression", right),
                ("NSPredicateOperator", predicateOperator(comparison)),
            ])
        case .block:
            return nil
        }
    }

    /// The operator object; the classes seen in Apple's archives are `NSEqualityPredicateOperator`,
    /// `NSComparisonPredicateOperator` and `NSInPredicateOperator`, the string operators' names are unverified.
    private func predicateOperator(_ comparison: ComparisonNode) -> PropertyListValue {
        let type = Int64(comparison.operatorType.rawValue)
        let modifier = Int64(comparison.modifier.rawValue)
        let options = Int64(comparison.options.rawValue)
        let className: String
        var fields: [(String, PropertyListValue)] = [("NSOperatorType", .integer(type)), ("NSModifier", .integer(modifier))]
        switch comparison.operatorType {
        case .equalTo, .notEqualTo:
            className = "NSEqualityPredicateOperator"
            fields += [("NSNegate", .bool(false)), ("NSOptions", .integer(options))]
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            className = "NSComparisonPredicateOperator"
            fields += [("NSVariant", .integer(type)), ("NSOptions", .integer(options))]
        case .in, .contains:
            className = "NSInPredicateOperator"
            fields.append(("NSFlags", .integer(options)))
        case .like: className = "NSLikePredicateOperator"; fields.append(("NSOptions", .integer(options)))
        case .matches: className = "NSMatchingPredicateOperator"; fields.append(("NSOptions", .integer(options)))
        case .beginsWith: className = "NSBeginsWithPredicateOperator"; fields.append(("NSOptions", .integer(options)))
        case .endsWith: className = "NSEndsWithPredicateOperator"; fields.append(("NSOptions", .integer(options)))
        case .between: className = "NSBetweenPredicateOperator"
        case .customSelector:
            className = "NSCustomPredicateOperator"
            fields.append(("NSSelectorName", writer.string(comparison.customSelector)))
        }
        return writer.object(classes: [className, "NSPredicateOperator", "NSObject"], fields: fields)
    }

    func expression(_ node: ExpressionNode, depth: Int = 0) -> PropertyListValue? {
        guard depth < Self.maximumPredicateDepth else { return nil }
        switch node {
        case .constant(let value):
            guard let constant = writer.foundationValue(value) else { return nil }
            return writer.object(classes: ["NSConstantValueExpression"] + Self.expressionBase,
                                 fields: [("NSExpressionType", .integer(0)), ("NSConstantValue", constant)])
        case .evaluatedObject:
            return writer.object(classes: ["NSSelfExpression"] + Self.expressionBase, fields: [("NSExpressionType", .integer(1))])
        case .variable(let name):
            return writer.object(classes: ["NSVariableExpression"] + Self.expressionBase,
                                 fields: [("NSExpressionType", .integer(2)), ("NSVariable", writer.string(name))])
        case .keyPath(let operand, let path):
            guard let archivedOperand = expression(operand, depth: depth + 1) else { return nil }
            let specifier = writer.object(classes: ["NSKeyPathSpecifierExpression"] + Self.expressionBase,
                                          fields: [("NSExpressionType", .integer(10)), ("NSKeyPath", writer.string(path))])
            let isPlain: Bool
            if case .evaluatedObject = operand { isPlain = true } else { isPlain = false }
            return writer.object(classes: Self.keyPathClasses, fields: [
                ("NSOperand", archivedOperand),
                ("NSSelectorName", writer.string(path.contains(".") ? "valueForKeyPath:" : "valueForKey:")),
                ("NSExpressionType", .integer(isPlain ? 3 : 4)),
                ("NSArguments", writer.array([specifier], classes: KeyedArchiveWriter.Classes.mutableArray)),
            ])
        case .function(let name, let arguments):
            // Built-in functions are sent to `_NSPredicateUtilities`, archived as a constant class name.
            let target = writer.object(classes: ["NSConstantValueExpression"] + Self.expressionBase, fields: [
                ("NSExpressionType", .integer(0)), ("NSConstantValueClassName", writer.string("_NSPredicateUtilities")),
            ])
            return function(target: target, selector: name, arguments: arguments, depth: depth)
        case .customFunction(let operand, let selector, let arguments):
            guard let target = expression(operand, depth: depth + 1) else { return nil }
            return function(target: target, selector: selector, arguments: arguments, depth: depth)
        case .aggregate(let items):
            var archived: [PropertyListValue] = []
            for item in items {
                guard let element = expression(item, depth: depth + 1) else { return nil }
                archived.append(element)
            }
            return writer.object(classes: ["NSAggregateExpression"] + Self.expressionBase,
                                 fields: [("NSExpressionType", .integer(14)), ("NSCollection", writer.array(archived))])
        case .set, .subquery, .anyKey, .block, .conditional, .fetchRequest:
            return nil
        }
    }

    private func function(target: PropertyListValue, selector: String, arguments: [ExpressionNode], depth: Int) -> PropertyListValue? {
        var archived: [PropertyListValue] = []
        for argument in arguments {
            guard let element = expression(argument, depth: depth + 1) else { return nil }
            archived.append(element)
        }
        return writer.object(classes: Self.functionClasses, fields: [
            ("NSOperand", target),
            ("NSSelectorName", writer.string(selector)),
            ("NSExpressionType", .integer(4)),
            ("NSArguments", writer.array(archived)),
        ])
    }
}
