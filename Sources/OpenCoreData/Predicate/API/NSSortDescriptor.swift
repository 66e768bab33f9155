import Foundation

// MARK: - NSSortDescriptor

/// An immutable description of how to order objects by a property.
///
/// Mirrors <https://developer.apple.com/documentation/foundation/nssortdescriptor>.
///
/// ```swift
/// let byTitle = NSSortDescriptor(key: "title", ascending: true, selector: .caseInsensitiveCompare)
/// let sorted = todos.sorted(using: [byTitle])
/// ```
///
/// `nil` values sort before every other value, as SQLite orders `NULL`s.
///
/// `@unchecked Sendable`: immutable after initialization; every stored property is a `let`,
/// the comparator is `@Sendable`, and `keyPath` is an immutable key path.
open class NSSortDescriptor: NSObject, NSCopying, @unchecked Sendable {
    /// The key path compared, such as `"title"` or `"owner.name"`; `nil` compares the objects themselves.
    ///
    /// A descriptor made from a Swift key path to a `@Managed` property before its model was
    /// loaded answers the name once a coordinator uses the model.
    public var key: String? { explicitKey ?? lateKey?.resolved }
    private let explicitKey: String?
    /// Set for a Swift key path that had no name when the descriptor was made.
    private let lateKey: LateKeyPathName?
    /// Whether smaller values come first.
    public let ascending: Bool
    /// The comparison method's selector; `compare:` unless another was given.
    public let selector: Selector?
    /// The Swift key path this descriptor was made from, if any.
    public let keyPath: AnyKeyPath?
    private let customComparator: (@Sendable (Any, Any) -> ComparisonResult)?
    /// Whether a comparator closure orders the values (then only in-memory sorting can honour it).
    package var hasCustomComparator: Bool { customComparator != nil }

    private init(
        key: String?, ascending: Bool, selector: Selector?, keyPath: AnyKeyPath?,
        comparator: (@Sendable (Any, Any) -> ComparisonResult)?
    ) {
        self.explicitKey = key
        self.lateKey = key == nil ? keyPath.map(LateKeyPathName.init) : nil
        self.ascending = ascending
        self.selector = selector
        self.keyPath = keyPath
        self.customComparator = comparator
        super.init()
    }

    /// Creates a descriptor that orders by `key` with `compare:`.
    public convenience init(key: String?, ascending: Bool) {
        self.init(key: key, ascending: ascending, selector: nil, keyPath: nil, comparator: nil)
    }

    /// Creates a descriptor that orders by `key` with the given comparison selector.
    public convenience init(key: String?, ascending: Bool, selector: Selector?) {
        self.init(key: key, ascending: ascending, selector: selector, keyPath: nil, comparator: nil)
    }

    /// Creates a descriptor that orders by `key` with a comparator (in-memory sorting only).
    public convenience init(key: String?, ascending: Bool, comparator cmptr: @escaping @Sendable (Any, Any) -> ComparisonResult) {
        self.init(key: key, ascending: ascending, selector: nil, keyPath: nil, comparator: cmptr)
    }

    /// Creates a descriptor from a Swift key path such as `\Todo.title`.
    ///
    /// `key` is the key path's name (`"title"`). A `@Managed` property gets its name when its
    /// model is loaded, so a descriptor made earlier (a `static let`) sorts when the fetch runs.
    /// Computed properties have none: such a descriptor sorts values of type `Root` in memory,
    /// and a fetch request with it stops with a message naming the key path.
    public convenience init<Root, Value>(keyPath: KeyPath<Root, Value>, ascending: Bool) {
        self.init(key: KeyPathName.name(of: keyPath), ascending: ascending, selector: nil, keyPath: keyPath, comparator: nil)
    }

    /// Creates a descriptor from a Swift key path with a comparator.
    public convenience init<Root, Value>(
        keyPath: KeyPath<Root, Value>, ascending: Bool,
        comparator cmptr: @escaping @Sendable (Any, Any) -> ComparisonResult
    ) {
        self.init(key: KeyPathName.name(of: keyPath), ascending: ascending, selector: nil, keyPath: keyPath, comparator: cmptr)
    }

    // MARK: - Derived descriptors

    /// The comparator used by `compare(_:to:)` on the extracted values.
    open var comparator: @Sendable (Any, Any) -> ComparisonResult {
        if let customComparator { return customComparator }
        let selectorName = selector.map(Self.selectorName) ?? "compare:"
        return { lhs, rhs in SortComparison.compare(lhs, rhs, selector: selectorName) }
    }

    /// A descriptor with the opposite order.
    open var reversedSortDescriptor: Any {
        NSSortDescriptor(key: key, ascending: !ascending, selector: selector, keyPath: keyPath, comparator: customComparator)
    }

    /// Allows an archived descriptor to be used; a no-op here.
    open func allowEvaluation() {}

    // MARK: - Comparing

    /// Orders two objects by this descriptor's key (or key path) and direction.
    ///
    /// Objects are read as predicates read them: managed objects, dictionaries, Swift values.
    open func compare(_ object1: Any, to object2: Any) -> ComparisonResult {
        compareSortValues(sortValue(of: object1), sortValue(of: object2))
    }

    /// The value this descriptor orders `object` by (its key path's value, unwrapped).
    package func sortValue(of object: Any) -> Any? { value(of: object) }

    /// Orders two values read by `sortValue(of:)`: `nil` first, then the comparator, then the direction.
    package func compareSortValues(_ lhs: Any?, _ rhs: Any?) -> ComparisonResult {
        let order: ComparisonResult
        switch (lhs, rhs) {
        case (nil, nil): order = .orderedSame
        case (nil, _): order = .orderedAscending
        case (_, nil): order = .orderedDescending
        case (let lhs?, let rhs?): order = comparator(lhs, rhs)
        }
        guard !ascending else { return order }
        switch order {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }

    private func value(of object: Any) -> Any? {
        let object = PredicateValue.unwrap(object)
        if let keyPath, let object, let value = Self.read(keyPath, from: object) {
            return PredicateValue.unwrap(value)
        }
        guard let key else { return object }
        return KeyValueAccess.value(forKeyPath: key, of: object)
    }

    private static func read(_ keyPath: AnyKeyPath, from object: Any) -> Any?? {
        func open<Root>(_ root: Root) -> Any?? {
            guard let typed = keyPath as? PartialKeyPath<Root> else { return nil }
            return .some(root[keyPath: typed])
        }
        return _openExistential(object, do: open)
    }

    // MARK: - Equality

    /// Equal when key, direction and selector are equal (and comparators are absent).
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSSortDescriptor else { return false }
        return other === self || (key == other.key && ascending == other.ascending
            && selector.map(Self.selectorName) == other.selector.map(Self.selectorName)
            && keyPath == other.keyPath && customComparator == nil && other.customComparator == nil)
    }

    /// A hash consistent with `isEqual(_:)`.
    open override var hash: Int {
        var hasher = Hasher()
        // By key path when there is one: its name may become known later, and a hash must not change.
        if let keyPath { hasher.combine(keyPath) } else { hasher.combine(key) }
        hasher.combine(ascending)
        return hasher.finalize()
    }

    /// `(key, ascending, selector)`, as Apple prints it.
    open override var description: String {
        "(\(key ?? "SELF"), \(ascending ? "ascending" : "descending"), \(selector.map(Self.selectorName) ?? "compare:"))"
    }

    /// Returns `self`: descriptors are immutable.
    open func copy(with zone: NSZone? = nil) -> Any {
        self
    }
}
