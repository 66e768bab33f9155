import Foundation

// MARK: - ExpressionEvaluator

/// Evaluates expression trees in memory.
package enum ExpressionEvaluator {
    /// The value of `node` with `object` as `SELF`. `nil` stands for `NULL`.
    package static func value(of node: ExpressionNode, object: Any?, context: inout EvaluationContext) -> Any? {
        WorkCounter.count()
        switch node {
        case .constant(let value):
            return value
        case .evaluatedObject:
            return object
        case .variable(let name):
            return PredicateValue.unwrap(context.bindings[name])
        case .keyPath(let operand, let path):
            let base = value(of: operand, object: object, context: &context)
            return KeyValueAccess.value(forKeyPath: path, of: base)
        case .function(let name, let arguments):
            var values: [Any?] = []
            values.reserveCapacity(arguments.count)
            for argument in arguments {
                values.append(value(of: argument, object: object, context: &context))
            }
            return FunctionEvaluator.call(name, values)
        case .customFunction(let operand, let selector, let arguments):
            // Linux cannot send a message by selector: only receivers that answer selectors
            // themselves take part (see ExpressionFunctionTarget).
            guard let target = value(of: operand, object: object, context: &context) as? any ExpressionFunctionTarget else { return nil }
            var values: [Any?] = []
            values.reserveCapacity(arguments.count)
            for argument in arguments {
                values.append(value(of: argument, object: object, context: &context))
            }
            return PredicateValue.unwrap(target.performExpressionFunction(selector, arguments: values))
        case .aggregate(let elements):
            var values: [Any] = []
            values.reserveCapacity(elements.count)
            for element in elements {
                values.append(value(of: element, object: object, context: &context) ?? NSNull())
            }
            return values
        case .set(let operation, let lhs, let rhs):
            let left = PredicateValue.elements(value(of: lhs, object: object, context: &context))?.values ?? []
            let right = PredicateValue.elements(value(of: rhs, object: object, context: &context))?.values ?? []
            return combine(operation, left, right)
        case .subquery(let collection, let variable, let predicate):
            let source = value(of: collection, object: object, context: &context)
            guard let elements = PredicateValue.elements(source) else { return nil }
            let saved = context.bindings[variable]
            defer { context.bindings[variable] = saved }
            return elements.values.filter { element in
                context.bindings[variable] = element
                return PredicateEvaluator.evaluate(predicate, object: element, context: &context)
            }
        case .anyKey:
            return nil
        case .block(let block, let arguments):
            var values: [Any] = []
            for argument in arguments {
                values.append(value(of: argument, object: object, context: &context) ?? NSNull())
            }
            return PredicateValue.unwrap(block.body(object, values, context.mutableContext))
        case .conditional(let condition, let whenTrue, let whenFalse):
            let holds = PredicateEvaluator.evaluate(condition, object: object, context: &context)
            return value(of: holds ? whenTrue : whenFalse, object: object, context: &context)
        case .fetchRequest(let request, let managedObjectContext, let countOnly):
            return fetch(value(of: request, object: object, context: &context),
                         in: value(of: managedObjectContext, object: object, context: &context), countOnly: countOnly)
        }
    }

    /// Runs a `FETCH` expression's request, as Apple's `NSFetchRequestExpression` does: the
    /// objects, or their count when `countOnly`; nil when the operands are not a fetch request and
    /// a context, or the fetch fails (an evaluation has no error channel: the context's next
    /// fetch or save throws the error).
    private static func fetch(_ request: Any?, in context: Any?, countOnly: Bool) -> Any? {
        guard let request = request as? NSFetchRequest<NSFetchRequestResult>,
              let context = context as? NSManagedObjectContext else { return nil }
        do {
            if countOnly { return NSNumber(value: try context.count(for: request)) }
            return try context.fetch(request)
        } catch {
            context.deferReadFailure(error)
            return nil
        }
    }

    private static func combine(_ operation: SetOperation, _ left: [Any], _ right: [Any]) -> [Any] {
        func contains(_ values: [Any], _ value: Any) -> Bool {
            values.contains { ValueComparison.equal($0, value) }
        }
        switch operation {
        case .union: return CollectionOperator.distinct(left + right)
        case .intersect: return CollectionOperator.distinct(left.filter { contains(right, $0) })
        case .minus: return CollectionOperator.distinct(left.filter { !contains(right, $0) })
        }
    }
}
