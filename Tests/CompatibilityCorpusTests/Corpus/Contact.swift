// A managed object that decodes and encodes itself, the common Codable pattern: the decoder
// carries the context in its userInfo.
import Foundation
import OpenCoreData

public final class Contact: NSManagedObject, Codable {
    enum CodingKeys: String, CodingKey {
        case name, age, email
    }

    @Managed public var name: String?
    @Managed public var age: Int16
    @Managed public var email: String?

    public required convenience init(from decoder: Decoder) throws {
        guard let context = decoder.userInfo[CodingUserInfoKey.managedObjectContext] as? NSManagedObjectContext else {
            throw DecoderConfigurationError.missingManagedObjectContext
        }
        self.init(context: context)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        age = try container.decodeIfPresent(Int16.self, forKey: .age) ?? 0
        email = try container.decodeIfPresent(String.self, forKey: .email)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(age, forKey: .age)
        try container.encodeIfPresent(email, forKey: .email)
    }

    @nonobjc public class func fetchRequest() -> NSFetchRequest<Contact> {
        NSFetchRequest<Contact>(entityName: "Contact")
    }

    public override func validateForInsert() throws {
        try super.validateForInsert()
        if let email, !email.contains("@") {
            throw NSError(domain: NSCocoaErrorDomain, code: NSValidationStringPatternMatchingError,
                          userInfo: [NSLocalizedDescriptionKey: "Invalid email", NSValidationKeyErrorKey: "email"])
        }
    }
}

enum ContactDecoding {
    static func decode(_ data: Data, into context: NSManagedObjectContext) throws -> [Contact] {
        let decoder = JSONDecoder()
        decoder.userInfo[CodingUserInfoKey.managedObjectContext] = context
        return try decoder.decode([Contact].self, from: data)
    }
}
