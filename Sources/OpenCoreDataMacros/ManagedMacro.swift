import SwiftDiagnostics
import SwiftParser
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// Implements `@Managed`, the Swift counterpart of Objective-C's `@NSManaged`.
///
/// The macro turns a stored `var` of an `NSManagedObject` subclass into a computed
/// property whose accessors forward to the object's storage:
///
/// ```swift
/// @Managed var title: String?
/// // becomes
/// var title: String? {
///     get { managedValue(forKey: "title") }
///     set { setManagedValue(newValue, forKey: "title") }
/// }
/// ```
///
/// The runtime picks the right `managedValue(forKey:)` overload from the declared
/// type, so the macro never looks at the type beyond requiring that one is written.
/// `@Managed("storedName")` uses `storedName` as the key instead of the Swift name.
public struct ManagedMacro: AccessorMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self) else {
            throw DiagnosticsError(diagnostics: [Diagnostic(node: node, message: ManagedMacroDiagnostic.notAProperty)])
        }
        // Check everything before giving up, so that one build reports every problem.
        // The compiler follows each of these with its own "did not produce a
        // non-observing accessor" error; any accessors returned instead would only
        // trade it for another follow-up error, so none are returned.
        var diagnostics: [Diagnostic] = []
        checkEnclosingContext(of: node, lexicalContext: context.lexicalContext, diagnostics: &diagnostics)
        let propertyName = checkProperty(variable, diagnostics: &diagnostics)
        let keyArgument = keyArgument(of: node, diagnostics: &diagnostics)
        guard diagnostics.isEmpty, let propertyName else {
            throw DiagnosticsError(diagnostics: diagnostics)
        }
        switch keyArgument {
        case .absent:
            if let primitiveKey = primitiveKey(of: propertyName) {
                // `primitiveTitle` is the primitive accessor of `title`: read as `title` is
                // read, written without change notifications (Apple's `primitive<Key>`).
                let keyLiteral = StringLiteralExprSyntax(content: primitiveKey)
                return [
                    AccessorDeclSyntax("get { managedValue(forKey: \(keyLiteral)) }"),
                    AccessorDeclSyntax("set { setManagedPrimitiveValue(newValue, forKey: \(keyLiteral)) }"),
                ]
            }
            return accessors(forKey: propertyName)
        case .key(let customKey):
            return accessors(forKey: customKey)
        }
    }

    private static func accessors(forKey key: String) -> [AccessorDeclSyntax] {
        let keyLiteral = StringLiteralExprSyntax(content: key)
        return [
            AccessorDeclSyntax("get { managedValue(forKey: \(keyLiteral)) }"),
            AccessorDeclSyntax("set { setManagedValue(newValue, forKey: \(keyLiteral)) }"),
        ]
    }

    /// The key whose primitive accessor a property name declares: `primitiveUpdatedAt` →
    /// `updatedAt`, following Key-Value Coding's `primitive<Key>` with the key's first letter
    /// capitalized. Nil for other names (`primitive`, `primitives`).
    ///
    /// An attribute literally named `primitiveX` is declared with `@Managed("primitiveX")`.
    static func primitiveKey(of name: String) -> String? {
        let prefix = "primitive"
        guard name.hasPrefix(prefix) else { return nil }
        let rest = name.dropFirst(prefix.count)
        guard let first = rest.first, first.isUppercase else { return nil }
        return first.lowercased() + rest.dropFirst()
    }

    // MARK: - Checks

    /// Rejects `@Managed` outside a class or an extension.
    ///
    /// Whether the class really inherits from `NSManagedObject` is left to the type
    /// checker: the generated accessors call members that only managed objects have.
    private static func checkEnclosingContext(
        of node: AttributeSyntax,
        lexicalContext: [Syntax],
        diagnostics: inout [Diagnostic]
    ) {
        guard let enclosing = lexicalContext.first else {
            diagnostics.append(
                Diagnostic(node: node, message: ManagedMacroDiagnostic.notInType(kind: "a global variable"))
            )
            return
        }
        if enclosing.is(ClassDeclSyntax.self) || enclosing.is(ExtensionDeclSyntax.self) {
            return
        }
        let kind: String
        switch enclosing.kind {
        case .structDecl: kind = "a struct"
        case .enumDecl: kind = "an enum"
        case .actorDecl: kind = "an actor"
        case .protocolDecl: kind = "a protocol"
        default: kind = "a local variable"
        }
        diagnostics.append(Diagnostic(node: node, message: ManagedMacroDiagnostic.notInType(kind: kind)))
    }

    /// Validates the declaration itself and returns the Swift property name, or
    /// `nil` after diagnosing why it can't be a managed property.
    private static func checkProperty(
        _ variable: VariableDeclSyntax,
        diagnostics: inout [Diagnostic]
    ) -> String? {
        let diagnosticsBefore = diagnostics.count

        if variable.bindingSpecifier.tokenKind == .keyword(.let) {
            diagnostics.append(
                Diagnostic(
                    node: variable.bindingSpecifier,
                    message: ManagedMacroDiagnostic.letConstant,
                    fixIt: FixIt(
                        message: ManagedMacroFixIt.replaceLetWithVar,
                        changes: [
                            .replace(
                                oldNode: Syntax(variable.bindingSpecifier),
                                newNode: Syntax(variable.bindingSpecifier.with(\.tokenKind, .keyword(.var)))
                            )
                        ]
                    )
                )
            )
        }

        for modifier in variable.modifiers {
            let message: ManagedMacroDiagnostic
            switch modifier.name.tokenKind {
            case .keyword(.static), .keyword(.class):
                message = .staticProperty(modifier: modifier.name.text)
            case .keyword(.lazy), .keyword(.weak), .keyword(.unowned):
                message = .unsupportedModifier(modifier.name.text)
            default:
                continue
            }
            let removal = TokenSyntax.removal(keeping: modifier.leadingTrivia)
            diagnostics.append(
                Diagnostic(
                    node: modifier,
                    message: message,
                    fixIt: FixIt(
                        message: ManagedMacroFixIt.removeModifier(modifier.name.text),
                        changes: [.replace(oldNode: Syntax(modifier), newNode: Syntax(removal))]
                    )
                )
            )
        }

        guard let binding = variable.bindings.first, variable.bindings.count == 1 else {
            diagnostics.append(Diagnostic(node: variable.bindings, message: ManagedMacroDiagnostic.multipleBindings))
            return nil
        }
        guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self) else {
            diagnostics.append(Diagnostic(node: binding.pattern, message: ManagedMacroDiagnostic.notASimpleName))
            return nil
        }
        let name = pattern.identifier.identifier?.name ?? pattern.identifier.text

        if binding.typeAnnotation == nil {
            diagnostics.append(Diagnostic(node: pattern, message: ManagedMacroDiagnostic.missingType(property: name)))
        }

        if let initializer = binding.initializer {
            diagnostics.append(
                Diagnostic(
                    node: initializer,
                    message: ManagedMacroDiagnostic.initialValue(property: name),
                    fixIt: FixIt(
                        message: ManagedMacroFixIt.removeInitialValue,
                        changes: [
                            .replace(
                                oldNode: Syntax(binding),
                                newNode: Syntax(
                                    binding.with(\.initializer, nil).with(\.trailingTrivia, initializer.trailingTrivia)
                                )
                            )
                        ]
                    )
                )
            )
        }

        if let accessorBlock = binding.accessorBlock {
            let message: ManagedMacroDiagnostic
            if case .accessors(let accessors) = accessorBlock.accessors,
                accessors.allSatisfy({ $0.isObserver })
            {
                message = .observers(property: name)
            } else {
                message = .computedProperty(property: name)
            }
            diagnostics.append(Diagnostic(node: accessorBlock, message: message))
        }

        return diagnostics.count == diagnosticsBefore ? name : nil
    }

    /// What `@Managed(...)` says about the key.
    private enum KeyArgument {
        /// `@Managed` or `@Managed()`: the key is the Swift property name.
        case absent
        /// `@Managed("key")`.
        case key(String)
    }

    /// Reads the optional key argument of `@Managed("key")`; after a diagnosed
    /// problem it returns `.absent`, which the caller never uses.
    private static func keyArgument(
        of node: AttributeSyntax,
        diagnostics: inout [Diagnostic]
    ) -> KeyArgument {
        guard let arguments = node.arguments else { return .absent }
        guard case .argumentList(let list) = arguments else {
            diagnostics.append(Diagnostic(node: arguments, message: ManagedMacroDiagnostic.badKeyArgument))
            return .absent
        }
        if list.isEmpty { return .absent }
        guard let argument = list.first, list.count == 1, argument.label == nil else {
            diagnostics.append(Diagnostic(node: list, message: ManagedMacroDiagnostic.badKeyArgument))
            return .absent
        }
        guard let literal = argument.expression.as(StringLiteralExprSyntax.self) else {
            diagnostics.append(Diagnostic(node: argument.expression, message: ManagedMacroDiagnostic.keyNotALiteral))
            return .absent
        }
        guard let key = literal.representedLiteralValue else {
            diagnostics.append(Diagnostic(node: literal, message: ManagedMacroDiagnostic.keyInterpolated))
            return .absent
        }
        guard !key.isEmpty else {
            diagnostics.append(Diagnostic(node: literal, message: ManagedMacroDiagnostic.emptyKey))
            return .absent
        }
        return .key(key)
    }
}

// MARK: - Helpers

extension AccessorDeclSyntax {
    /// Whether this is a `willSet` or `didSet` observer rather than a real accessor.
    fileprivate var isObserver: Bool {
        switch accessorSpecifier.tokenKind {
        case .keyword(.willSet), .keyword(.didSet): true
        default: false
        }
    }
}

extension TokenSyntax {
    /// An empty token standing in for deleted syntax; it keeps the given trivia so
    /// that a fix-it doesn't join lines.
    fileprivate static func removal(keeping leadingTrivia: Trivia) -> TokenSyntax {
        TokenSyntax(.identifier(""), leadingTrivia: leadingTrivia, trailingTrivia: [], presence: .present)
    }
}
