import SwiftDiagnostics

/// The errors `@Managed` reports, each saying what is wrong and what to write instead.
enum ManagedMacroDiagnostic: DiagnosticMessage {
    case notAProperty
    case notInType(kind: String)
    case letConstant
    case staticProperty(modifier: String)
    case unsupportedModifier(String)
    case multipleBindings
    case notASimpleName
    case missingType(property: String)
    case initialValue(property: String)
    case computedProperty(property: String)
    case observers(property: String)
    case badKeyArgument
    case keyNotALiteral
    case keyInterpolated
    case emptyKey

    var message: String {
        switch self {
        case .notAProperty:
            "'@Managed' can only be applied to a 'var' property of an NSManagedObject subclass"
        case .notInType(let kind):
            "'@Managed' can only be applied to a property of an NSManagedObject subclass or of an extension of one, not to \(kind)"
        case .letConstant:
            "'@Managed' cannot be applied to a 'let' constant; Core Data changes managed values, so use 'var'"
        case .staticProperty(let modifier):
            "'@Managed' cannot be applied to a '\(modifier)' property; Core Data stores values per object"
        case .unsupportedModifier(let modifier):
            "'@Managed' cannot be combined with '\(modifier)'; Core Data manages the property's storage"
        case .multipleBindings:
            "'@Managed' must be applied to a single property; declare each managed property with its own 'var'"
        case .notASimpleName:
            "'@Managed' requires a simple property name, not a pattern"
        case .missingType(let property):
            "'@Managed' property '\(property)' needs an explicit type, e.g. 'var \(property): String?'; the type selects how Core Data reads and writes the value"
        case .initialValue(let property):
            "'@Managed' property '\(property)' cannot have an initial value; Core Data takes defaults from the model: set the default value in the model, or assign it in awakeFromInsert()"
        case .computedProperty(let property):
            "'@Managed' cannot be applied to computed property '\(property)'; the macro provides the getter and setter"
        case .observers(let property):
            "'@Managed' property '\(property)' cannot have 'willSet' or 'didSet' observers; the macro provides the getter and setter"
        case .badKeyArgument:
            "'@Managed' takes at most one unlabeled argument, the model's property name, e.g. '@Managed(\"storedName\")'"
        case .keyNotALiteral:
            "the key given to '@Managed' must be a string literal"
        case .keyInterpolated:
            "the key given to '@Managed' must be a string literal without interpolation"
        case .emptyKey:
            "the key given to '@Managed' must not be empty"
        }
    }

    var diagnosticID: MessageID {
        let id =
            switch self {
            case .notAProperty: "notAProperty"
            case .notInType: "notInType"
            case .letConstant: "letConstant"
            case .staticProperty: "staticProperty"
            case .unsupportedModifier: "unsupportedModifier"
            case .multipleBindings: "multipleBindings"
            case .notASimpleName: "notASimpleName"
            case .missingType: "missingType"
            case .initialValue: "initialValue"
            case .computedProperty: "computedProperty"
            case .observers: "observers"
            case .badKeyArgument: "badKeyArgument"
            case .keyNotALiteral: "keyNotALiteral"
            case .keyInterpolated: "keyInterpolated"
            case .emptyKey: "emptyKey"
            }
        return MessageID(domain: "OpenCoreDataMacros", id: id)
    }

    var severity: DiagnosticSeverity { .error }
}

/// The fix-its offered with `ManagedMacroDiagnostic`.
enum ManagedMacroFixIt: FixItMessage {
    case replaceLetWithVar
    case removeModifier(String)
    case removeInitialValue

    var message: String {
        switch self {
        case .replaceLetWithVar: "Replace 'let' with 'var'"
        case .removeModifier(let modifier): "Remove '\(modifier)'"
        case .removeInitialValue: "Remove the initial value"
        }
    }

    var fixItID: MessageID {
        let id =
            switch self {
            case .replaceLetWithVar: "replaceLetWithVar"
            case .removeModifier: "removeModifier"
            case .removeInitialValue: "removeInitialValue"
            }
        return MessageID(domain: "OpenCoreDataMacros", id: id)
    }
}
