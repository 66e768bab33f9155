import Foundation

// MARK: - Empty-collection defaults for NSSet on Linux

// On Apple platforms `NSSet` and `NSMutableSet` are `ExpressibleByArrayLiteral`, so Core Data
// code writes `item.tags ?? []` for a missing to-many value. swift-corelibs-foundation's are not,
// and a non-final class can't gain the conformance retroactively: its `init(arrayLiteral:)` would
// have to be a `required` initializer in the class's own declaration. These overloads of `??`
// make that one common spelling compile; `let set: NSSet = []` still needs `NSSet()` on Linux
// (docs/Deviations.md). `NSOrderedSet` and `NSArray` are literals on Linux already.
#if !canImport(Darwin)

/// `optionalSet ?? []`: the set, or a set of the default elements.
public func ?? (set: NSSet?, defaultElements: @autoclosure () throws -> [AnyHashable]) rethrows -> NSSet {
    if let set { return set }
    return NSSet(array: try defaultElements())
}

/// `optionalMutableSet ?? []`: the set, or a new mutable set of the default elements.
public func ?? (set: NSMutableSet?, defaultElements: @autoclosure () throws -> [AnyHashable]) rethrows -> NSMutableSet {
    if let set { return set }
    return NSMutableSet(array: try defaultElements())
}

#endif
