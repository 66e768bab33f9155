import Testing

/// `@Managed` on well-formed properties: the accessors it writes.
@Suite("@Managed expansion")
struct ManagedMacroExpansionTests {
    @Test("An optional attribute forwards to managedValue and setManagedValue under its own name")
    func optionalAttribute() {
        assertManagedExpansion(
            """
            final class Todo: NSManagedObject {
                @Managed var title: String?
            }
            """,
            expandedSource: """
                final class Todo: NSManagedObject {
                    var title: String? {
                        get {
                            managedValue(forKey: "title")
                        }
                        set {
                            setManagedValue(newValue, forKey: "title")
                        }
                    }
                }
                """
        )
    }

    @Test("primitive<Key> reads <key> and writes it as setPrimitiveValue does (Apple's primitive accessors)")
    func primitiveAccessor() {
        assertManagedExpansion(
            """
            final class Todo: NSManagedObject {
                @Managed private var primitiveUpdatedAt: Date?
            }
            """,
            expandedSource: """
                final class Todo: NSManagedObject {
                    private var primitiveUpdatedAt: Date? {
                        get {
                            managedValue(forKey: "updatedAt")
                        }
                        set {
                            setManagedPrimitiveValue(newValue, forKey: "updatedAt")
                        }
                    }
                }
                """
        )
    }

    @Test("Names that only start with 'primitive', and explicit keys, are ordinary properties")
    func notPrimitiveAccessors() {
        assertManagedExpansion(
            """
            final class Todo: NSManagedObject {
                @Managed var primitives: Int16
                @Managed("primitiveColor") var primitiveColor: String?
            }
            """,
            expandedSource: """
                final class Todo: NSManagedObject {
                    var primitives: Int16 {
                        get {
                            managedValue(forKey: "primitives")
                        }
                        set {
                            setManagedValue(newValue, forKey: "primitives")
                        }
                    }
                    var primitiveColor: String? {
                        get {
                            managedValue(forKey: "primitiveColor")
                        }
                        set {
                            setManagedValue(newValue, forKey: "primitiveColor")
                        }
                    }
                }
                """
        )
    }

    @Test(
        "Every property shape expands the same way, whatever its type",
        arguments: [
            "done: Bool",
            "priority: Int16",
            "createdAt: Date?",
            "tags: Set<Tag>",
            "tagSet: NSSet?",
            "steps: NSOrderedSet?",
            "location: Location?",
            "payload: [String: Any]?",
            "scores: [Double]",
            "handler: (() -> Void)?",
            "pair: (Int, Int)?",
            "transformable: any NSSecureCoding",
        ]
    )
    func propertyShapes(declaration: String) throws {
        let name = try #require(declaration.split(separator: ":").first)
        let type = declaration.dropFirst(name.count + 2)
        assertManagedExpansion(
            """
            final class Todo: NSManagedObject {
                @Managed var \(declaration)
            }
            """,
            expandedSource: """
                final class Todo: NSManagedObject {
                    var \(name): \(type) {
                        get {
                            managedValue(forKey: "\(name)")
                        }
                        set {
                            setManagedValue(newValue, forKey: "\(name)")
                        }
                    }
                }
                """
        )
    }

    @Test("The whole Todo class of the brief, with access modifiers kept")
    func todoClass() {
        assertManagedExpansion(
            """
            final class Todo: NSManagedObject {
                @Managed var done: Bool
                @Managed public var id: UUID?
                @Managed private(set) var steps: NSOrderedSet?
            }
            """,
            expandedSource: """
                final class Todo: NSManagedObject {
                    var done: Bool {
                        get {
                            managedValue(forKey: "done")
                        }
                        set {
                            setManagedValue(newValue, forKey: "done")
                        }
                    }
                    public var id: UUID? {
                        get {
                            managedValue(forKey: "id")
                        }
                        set {
                            setManagedValue(newValue, forKey: "id")
                        }
                    }
                    private(set) var steps: NSOrderedSet? {
                        get {
                            managedValue(forKey: "steps")
                        }
                        set {
                            setManagedValue(newValue, forKey: "steps")
                        }
                    }
                }
                """
        )
    }

    @Test("@Managed(\"key\") uses the model's name instead of the Swift name")
    func customKey() {
        assertManagedExpansion(
            """
            final class Account: NSManagedObject {
                @Managed("customStoredName") var x: Int64
            }
            """,
            expandedSource: """
                final class Account: NSManagedObject {
                    var x: Int64 {
                        get {
                            managedValue(forKey: "customStoredName")
                        }
                        set {
                            setManagedValue(newValue, forKey: "customStoredName")
                        }
                    }
                }
                """
        )
    }

    @Test("@Managed() with empty parentheses uses the Swift name")
    func emptyParentheses() {
        assertManagedExpansion(
            """
            final class Todo: NSManagedObject {
                @Managed() var done: Bool
            }
            """,
            expandedSource: """
                final class Todo: NSManagedObject {
                    var done: Bool {
                        get {
                            managedValue(forKey: "done")
                        }
                        set {
                            setManagedValue(newValue, forKey: "done")
                        }
                    }
                }
                """
        )
    }

    @Test("Keys with quotes, backslashes or escapes are written as valid literals")
    func keysNeedingEscapes() {
        assertManagedExpansion(
            #"""
            final class Odd: NSManagedObject {
                @Managed("say \"hi\"") var quoted: String?
                @Managed(#"back\slash"#) var slashed: String?
                @Managed("tab\there") var tabbed: String?
            }
            """#,
            expandedSource: #"""
                final class Odd: NSManagedObject {
                    var quoted: String? {
                        get {
                            managedValue(forKey: #"say "hi""#)
                        }
                        set {
                            setManagedValue(newValue, forKey: #"say "hi""#)
                        }
                    }
                    var slashed: String? {
                        get {
                            managedValue(forKey: #"back\slash"#)
                        }
                        set {
                            setManagedValue(newValue, forKey: #"back\slash"#)
                        }
                    }
                    var tabbed: String? {
                        get {
                            managedValue(forKey: "tab\there")
                        }
                        set {
                            setManagedValue(newValue, forKey: "tab\there")
                        }
                    }
                }
                """#
        )
    }

    @Test("A backquoted name is used as a key without its backquotes")
    func backquotedName() {
        assertManagedExpansion(
            """
            final class Setting: NSManagedObject {
                @Managed var `default`: Bool
            }
            """,
            expandedSource: """
                final class Setting: NSManagedObject {
                    var `default`: Bool {
                        get {
                            managedValue(forKey: "default")
                        }
                        set {
                            setManagedValue(newValue, forKey: "default")
                        }
                    }
                }
                """
        )
    }

    @Test("Xcode's generated extension (Todo+CoreDataProperties.swift) expands")
    func generatedExtension() {
        assertManagedExpansion(
            """
            extension Todo {
                @nonobjc public class func fetchRequest() -> NSFetchRequest<Todo> {
                    return NSFetchRequest<Todo>(entityName: "Todo")
                }

                /// The title shown in the list.
                @Managed public var title: String?
                @Managed public var tagSet: NSSet?
            }
            """,
            expandedSource: """
                extension Todo {
                    @nonobjc public class func fetchRequest() -> NSFetchRequest<Todo> {
                        return NSFetchRequest<Todo>(entityName: "Todo")
                    }

                    /// The title shown in the list.
                    public var title: String? {
                        get {
                            managedValue(forKey: "title")
                        }
                        set {
                            setManagedValue(newValue, forKey: "title")
                        }
                    }
                    public var tagSet: NSSet? {
                        get {
                            managedValue(forKey: "tagSet")
                        }
                        set {
                            setManagedValue(newValue, forKey: "tagSet")
                        }
                    }
                }
                """
        )
    }

    @Test("Other attributes on the property are kept")
    func otherAttributesKept() {
        assertManagedExpansion(
            """
            final class Todo: NSManagedObject {
                @available(*, deprecated, message: "use title")
                @Managed var name: String?
            }
            """,
            expandedSource: """
                final class Todo: NSManagedObject {
                    @available(*, deprecated, message: "use title")
                    var name: String? {
                        get {
                            managedValue(forKey: "name")
                        }
                        set {
                            setManagedValue(newValue, forKey: "name")
                        }
                    }
                }
                """
        )
    }

    @Test("A class nested in another type is still a class")
    func nestedClass() {
        assertManagedExpansion(
            """
            enum Model {
                final class Note: NSManagedObject {
                    @Managed var body: String?
                }
            }
            """,
            expandedSource: """
                enum Model {
                    final class Note: NSManagedObject {
                        var body: String? {
                            get {
                                managedValue(forKey: "body")
                            }
                            set {
                                setManagedValue(newValue, forKey: "body")
                            }
                        }
                    }
                }
                """
        )
    }
}
