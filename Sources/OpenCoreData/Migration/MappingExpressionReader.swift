import Foundation

/// Rebuilds the `NSExpression`s of a mapping model from their keyed-archive form.
///
/// Fetch request expressions (`NSFetchRequestExpression`, type 50: `NSFRExpression`,
/// `NSMOCExpression`, `NSCountOnlyFlag`) are taken apart here; every other expression goes
/// through ``ArchivedPredicateFormatter`` to Apple's format syntax and back through the
/// expression parser, the path compiled models' predicates take. An expression either reader
/// refuses fails the load: a property mapping that silently lost its expression would migrate
/// nothing into its property.
struct MappingExpressionReader {
    let formatter = ArchivedPredicateFormatter()

    /// The expression archived in `object`; `context` names its place for error messages.
    func expression(_ object: ArchivedObject, context: String, depth: Int = 0) throws -> NSExpression {
        guard depth < ArchivedPredicateFormatter.maximumDepth else {
            throw MappingModelFailure.corrupt("\(context) is nested too deeply")
        }
        if object.className == "NSFetchRequestExpression" || (try? object.integer("NSExpressionType")) == 50 {
            guard let request = try object.object("NSFRExpression"), let managedObjectContext = try object.object("NSMOCExpression") else {
                throw MappingModelFailure.corrupt("\(context) is a fetch request expression without its request or context expression")
            }
            let countOnly = try object.bool("NSCountOnlyFlag") ?? false
            return NSFetchRequestExpression.expression(
                forFetch: try expression(request, context: context, depth: depth + 1),
                context: try expression(managedObjectContext, context: context, depth: depth + 1),
                countOnly: countOnly)
        }
        let format: String
        do {
            format = try formatter.expression(object)
        } catch let unsupported as ArchivedPredicateFormatter.Unsupported {
            throw MappingModelFailure.corrupt("\(context) can't be read (\(unsupported.what))")
        }
        return try parse(format, context: context)
    }

    /// Parses an expression in Apple's format syntax, turning a syntax error into a failure.
    func parse(_ format: String, context: String) throws -> NSExpression {
        do {
            return try NSExpression.parse(format: format)
        } catch {
            throw MappingModelFailure.corrupt("\(context) '\(format)' is not a valid expression (\(error))", underlying: error)
        }
    }

    /// The expression archived on its own (an `.xcmappingmodel`'s `valueexpressiondata`).
    func expression(archive data: Data, location: ModelFileLocation, context: String) throws -> NSExpression {
        let archive = try KeyedArchive(data: data, location: location)
        let root = try archive.root()
        guard root.isKind(of: "NSExpression") else {
            throw MappingModelFailure.corrupt("\(context) holds a \(root.className), not an NSExpression")
        }
        return try expression(root, context: context)
    }
}
