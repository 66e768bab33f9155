import Foundation

// MARK: - Apple's Swift spellings of the concurrency type

/// The Objective-C name of `NSManagedObjectContext.ConcurrencyType`.
public typealias NSManagedObjectContextConcurrencyType = NSManagedObjectContext.ConcurrencyType

extension NSManagedObjectContext.ConcurrencyType {
    /// The context runs on the main queue (iOS 15 spelling).
    public static var mainQueue: Self { .mainQueueConcurrencyType }
    /// The context owns a private serial queue (iOS 15 spelling).
    public static var privateQueue: Self { .privateQueueConcurrencyType }
}

extension NSManagedObjectContext {
    /// Creates a context with a concurrency type: `NSManagedObjectContext(.mainQueue)`.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/init(_:)>.
    public convenience init(_ type: ConcurrencyType) {
        self.init(concurrencyType: type)
    }
}
