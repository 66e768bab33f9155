import Foundation

// MARK: - NSSecureCoding

extension NSPersistentHistoryToken: NSSecureCoding {
    private static let storesKey = "OCDHistoryStores"
    private static let numbersKey = "OCDHistoryTransactionNumbers"

    /// Tokens decode only the strings and numbers they hold.
    public static var supportsSecureCoding: Bool { true }

    /// Encodes the store identifiers and transaction numbers (two parallel arrays).
    public func encode(with coder: NSCoder) {
        let sorted = transactionNumbers.sorted { $0.key < $1.key }
        coder.encode(sorted.map { NSString(string: $0.key) } as NSArray, forKey: Self.storesKey)
        coder.encode(sorted.map { NSNumber(value: $0.value) } as NSArray, forKey: Self.numbersKey)
    }

    /// Decodes a token archived by `encode(with:)`; nil for anything else.
    public convenience init?(coder: NSCoder) {
        let classes: [AnyClass] = [NSArray.self, NSString.self, NSNumber.self]
        guard let stores = coder.decodeObject(of: classes, forKey: Self.storesKey) as? NSArray,
              let numbers = coder.decodeObject(of: classes, forKey: Self.numbersKey) as? NSArray,
              stores.count == numbers.count else { return nil }
        var values: [String: Int64] = [:]
        for (store, number) in zip(stores, numbers) {
            guard let store = (store as? NSString).map(String.init), let number = (number as? NSNumber)?.int64Value else { return nil }
            values[store] = number
        }
        self.init(transactionNumbers: values)
    }
}

// MARK: - Codable

extension NSPersistentHistoryToken: Codable {
    private enum CodingKeys: String, CodingKey {
        case transactionNumbers
    }

    /// Decodes a token encoded by `encode(to:)`.
    public convenience init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(transactionNumbers: try container.decode([String: Int64].self, forKey: .transactionNumbers))
    }

    /// Encodes the token's transaction number per store identifier.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(transactionNumbers, forKey: .transactionNumbers)
    }
}
