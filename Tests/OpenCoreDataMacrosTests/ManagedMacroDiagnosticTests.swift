import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// `@Managed` on declarations it can't handle: a clear error, no accessors, no crash.
@Suite("@Managed diagnostics")
struct ManagedMacroDiagnosticTests {
    // MARK: - The declaration

    @Test("A 'let' is rejected, with a fix-it to 'var'")
    func letConstant() {
        assertManagedExpansion(
            """
            final class Todo: NSManagedObject {
                @Managed let title: String?
            }
            """,
            expandedSource: """
                final class Todo: NSManagedObject {
                    let title: String?
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Managed' cannot be applied to a 'let' constant; Core Data changes managed values, so use 'var'",
                    line: 2,
                    column: 14,
                    fixIts: [FixItSpec(message: "Replace 'let' with 'var'")]
                )
            ],
            fixedSource: """
                final class Todo: NSManagedObject {
                    @Managed var title: String?
                }
                """
        )
    }

    @Test("An initial value is rejected: defaults come from the model")
    func initialValue() {
        assertManagedExpansion(
            """
            final class Todo: NSManagedObject {
                @Managed var x: Int = 0
            }
            """,
            expandedSource: """
                final class Todo: NSManagedObject {
                    var x: Int = 0
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "'@Managed' property 'x' cannot have an initial value; Core Data takes defaults from the model: set the default value in the model, or assign it in awakeFromInsert()",
                    line: 2,
                    column: 25,
                    fixIts: [FixItSpec(message: "Remove the initial value")]
                )
            ],
            fixedSource: """
                final class Todo: NSManagedObject {
                    @Managed var x: Int
                }
                """
        )
    }

    @Test("A missing type annotation is rejected")
    func missingType() {
        assertManagedExpansion(
            """
            final class Todo: NSManagedObject {
                @Managed var title
            }
            """,
            expandedSource: """
                final class Todo: NSManagedObject {
                    var title
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "'@Managed' property 'title' needs an explicit type, e.g. 'var title: String?'; the type selects how Core Data reads and writes the value",
                    line: 2,
                    column: 18
                )
            ]
        )
    }

    @Test("An inferred type and an initial value are both reported")
    func missingTypeAndInitialValue() {
        assertManagedExpansion(
            """
            final class Todo: NSManagedObject {
                @Managed var count = 0 // items
            }
            """,
            expandedSource: """
                final class Todo: NSManagedObject {
                    var count = 0 // items
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "'@Managed' property 'count' needs an explicit type, e.g. 'var count: String?'; the type selects how Core Data reads and writes the value",
                    line: 2,
                    column: 18
                ),
                DiagnosticSpec(
                    message:
                        "'@Managed' property 'count' cannot have an initial value; Core Data takes defaults from the model: set the default value in the model, or assign it in awakeFromInsert()",
                    line: 2,
                    column: 24,
                    fixIts: [FixItSpec(message: "Remove the initial value")]
                ),
            ],
            fixedSource: """
                final class Todo: NSManagedObject {
                    @Managed var count // items
                }
                """
        )
    }

    @Test("A computed property is rejected", arguments: ["{ 42 }", "{ get { 42 } set {} }"])
    func computedProperty(body: String) {
        assertManagedExpansion(
            """
            final class Todo: NSManagedObject {
                @Managed var answer: Int \(body)
            }
            """,
            expandedSource: """
                final class Todo: NSManagedObject {
                    var answer: Int \(body)
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Managed' cannot be applied to computed property 'answer'; the macro provides the getter and setter",
                    line: 2,
                    column: 30
                )
            ]
        )
    }

    @Test("Property observers are rejected")
    func observers() {
        assertManagedExpansion(
            """
            final class Todo: NSManagedObject {
                @Managed var done: Bool { didSet { print(done) } }
            }
            """,
            expandedSource: """
                final class Todo: NSManagedObject {
                    var done: Bool { didSet { print(done) } }
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "'@Managed' property 'done' cannot have 'willSet' or 'didSet' observers; the macro provides the getter and setter",
                    line: 2,
                    column: 29
                )
            ]
        )
    }

    @Test("A static or class property is rejected, with a fix-it to remove the modifier", arguments: ["static", "class"])
    func staticProperty(modifier: String) {
        assertManagedExpansion(
            """
            final class Todo: NSManagedObject {
                @Managed \(modifier) var count: Int
            }
            """,
            expandedSource: """
                final class Todo: NSManagedObject {
                    \(modifier) var count: Int
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Managed' cannot be applied to a '\(modifier)' property; Core Data stores values per object",
                    line: 2,
                    column: 14,
                    fixIts: [FixItSpec(message: "Remove '\(modifier)'")]
                )
            ],
            fixedSource: """
                final class Todo: NSManagedObject {
                    @Managed var count: Int
                }
                """
        )
    }

    @Test("lazy, weak and unowned are rejected", arguments: ["lazy", "weak", "unowned"])
    func storageModifiers(modifier: String) {
        assertManagedExpansion(
            """
            final class Todo: NSManagedObject {
                @Managed public \(modifier) var owner: Person?
            }
            """,
            expandedSource: """
                final class Todo: NSManagedObject {
                    public \(modifier) var owner: Person?
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Managed' cannot be combined with '\(modifier)'; Core Data manages the property's storage",
                    line: 2,
                    column: 21,
                    fixIts: [FixItSpec(message: "Remove '\(modifier)'")]
                )
            ],
            fixedSource: """
                final class Todo: NSManagedObject {
                    @Managed public var owner: Person?
                }
                """
        )
    }

    @Test("Several problems in one declaration are all reported")
    func severalProblems() {
        assertManagedExpansion(
            """
            final class Todo: NSManagedObject {
                @Managed static let limit: Int = 10
            }
            """,
            expandedSource: """
                final class Todo: NSManagedObject {
                    static let limit: Int = 10
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Managed' cannot be applied to a 'let' constant; Core Data changes managed values, so use 'var'",
                    line: 2,
                    column: 21,
                    fixIts: [FixItSpec(message: "Replace 'let' with 'var'")]
                ),
                DiagnosticSpec(
                    message: "'@Managed' cannot be applied to a 'static' property; Core Data stores values per object",
                    line: 2,
                    column: 14,
                    fixIts: [FixItSpec(message: "Remove 'static'")]
                ),
                DiagnosticSpec(
                    message:
                        "'@Managed' property 'limit' cannot have an initial value; Core Data takes defaults from the model: set the default value in the model, or assign it in awakeFromInsert()",
                    line: 2,
                    column: 36,
                    fixIts: [FixItSpec(message: "Remove the initial value")]
                ),
            ],
            fixedSource: """
                final class Todo: NSManagedObject {
                    @Managed var limit: Int
                }
                """
        )
    }

    /// swift-syntax (and the compiler) refuse an accessor macro on several variables
    /// before calling `ManagedMacro`, so this pins their message; the macro's own
    /// check is a backstop.
    @Test("Several variables in one declaration are rejected")
    func multipleBindings() {
        assertManagedExpansion(
            """
            final class Point: NSManagedObject {
                @Managed var x: Double, y: Double
            }
            """,
            expandedSource: """
                final class Point: NSManagedObject {
                    var x: Double, y: Double
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "accessor macro can only be applied to a single variable",
                    line: 2,
                    column: 5
                )
            ]
        )
    }

    @Test("A tuple pattern is rejected")
    func tuplePattern() {
        assertManagedExpansion(
            """
            final class Point: NSManagedObject {
                @Managed var (x, y): (Double, Double)
            }
            """,
            expandedSource: """
                final class Point: NSManagedObject {
                    var (x, y): (Double, Double)
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Managed' requires a simple property name, not a pattern",
                    line: 2,
                    column: 18
                )
            ]
        )
    }

    @Test("A subscript is not a property")
    func subscriptDeclaration() {
        assertManagedExpansion(
            """
            final class Todo: NSManagedObject {
                @Managed subscript(index: Int) -> Int { index }
            }
            """,
            expandedSource: """
                final class Todo: NSManagedObject {
                    subscript(index: Int) -> Int { index }
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Managed' can only be applied to a 'var' property of an NSManagedObject subclass",
                    line: 2,
                    column: 5
                )
            ]
        )
    }

    // MARK: - Where the property is

    @Test(
        "A property outside a class or extension is rejected",
        arguments: [
            ("struct", "a struct"),
            ("enum", "an enum"),
            ("actor", "an actor"),
            ("protocol", "a protocol"),
        ]
    )
    func notInClass(keyword: String, kind: String) {
        assertManagedExpansion(
            """
            \(keyword) Thing {
                @Managed var title: String?
            }
            """,
            expandedSource: """
                \(keyword) Thing {
                    var title: String?
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "'@Managed' can only be applied to a property of an NSManagedObject subclass or of an extension of one, not to \(kind)",
                    line: 2,
                    column: 5
                )
            ]
        )
    }

    @Test("A global variable is rejected")
    func globalVariable() {
        assertManagedExpansion(
            """
            @Managed var title: String?
            """,
            expandedSource: """
                var title: String?
                """,
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "'@Managed' can only be applied to a property of an NSManagedObject subclass or of an extension of one, not to a global variable",
                    line: 1,
                    column: 1
                )
            ]
        )
    }

    @Test("A local variable is rejected")
    func localVariable() {
        assertManagedExpansion(
            """
            final class Todo: NSManagedObject {
                func f() {
                    @Managed var title: String?
                }
            }
            """,
            expandedSource: """
                final class Todo: NSManagedObject {
                    func f() {
                        var title: String?
                    }
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "'@Managed' can only be applied to a property of an NSManagedObject subclass or of an extension of one, not to a local variable",
                    line: 3,
                    column: 9
                )
            ]
        )
    }

    // MARK: - The key argument

    @Test("A key that isn't a string literal is rejected")
    func keyNotALiteral() {
        assertManagedExpansion(
            """
            final class Todo: NSManagedObject {
                @Managed(storedName) var title: String?
            }
            """,
            expandedSource: """
                final class Todo: NSManagedObject {
                    var title: String?
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "the key given to '@Managed' must be a string literal",
                    line: 2,
                    column: 14
                )
            ]
        )
    }

    @Test("An interpolated key is rejected")
    func keyInterpolated() {
        assertManagedExpansion(
            #"""
            final class Todo: NSManagedObject {
                @Managed("title\(suffix)") var title: String?
            }
            """#,
            expandedSource: """
                final class Todo: NSManagedObject {
                    var title: String?
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "the key given to '@Managed' must be a string literal without interpolation",
                    line: 2,
                    column: 14
                )
            ]
        )
    }

    @Test("An empty key is rejected")
    func emptyKey() {
        assertManagedExpansion(
            """
            final class Todo: NSManagedObject {
                @Managed("") var title: String?
            }
            """,
            expandedSource: """
                final class Todo: NSManagedObject {
                    var title: String?
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "the key given to '@Managed' must not be empty",
                    line: 2,
                    column: 14
                )
            ]
        )
    }

    @Test("A labelled key or several arguments are rejected", arguments: [#"key: "title""#, #""a", "b""#])
    func badArguments(arguments: String) {
        assertManagedExpansion(
            """
            final class Todo: NSManagedObject {
                @Managed(\(arguments)) var title: String?
            }
            """,
            expandedSource: """
                final class Todo: NSManagedObject {
                    var title: String?
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message:
                        #"'@Managed' takes at most one unlabeled argument, the model's property name, e.g. '@Managed("storedName")'"#,
                    line: 2,
                    column: 14
                )
            ]
        )
    }
}
