import Foundation

/// An object whose methods `FUNCTION(object, "selector:", arguments…)` expressions can call.
///
/// On Apple platforms `FUNCTION` sends any Objective-C message to its receiver. Linux has no
/// Objective-C runtime to look a selector up, so an object takes part by conforming and
/// answering the selectors it knows; any other receiver makes the expression evaluate to nil.
/// `NSMigrationManager` answers Apple's mapping-model functions
/// (`destinationInstancesForEntityMappingNamed:sourceInstances:` and its siblings), and an
/// `NSEntityMigrationPolicy` subclass overrides `performExpressionFunction(_:arguments:)` for
/// `FUNCTION($entityPolicy, …)` calls in its mapping model.
public protocol ExpressionFunctionTarget: AnyObject {
    /// The result of calling `selector` (Objective-C spelling, such as `"fullNameFrom:and:"`)
    /// with the evaluated arguments (`nil` for `NULL`); nil for a selector the object does not know.
    func performExpressionFunction(_ selector: String, arguments: [Any?]) -> Any?
}
