import Foundation
import Testing
@testable import OpenCoreData

// MARK: - PredicateErrorTests

@Suite("Predicate format errors")
struct PredicateErrorTests {
    private func failure(_ format: String, _ arguments: [Any] = []) -> PredicateFormatError? {
        do {
            _ = try NSPredicate.parse(format: format, arguments: arguments)
            return nil
        } catch {
            return error
        }
    }

    @Test("Malformed strings report the position and a message")
    func positionsAndMessages() throws {
        let table: [(format: String, offset: Int, fragment: String)] = [
            ("age >", 5, "expected an expression"),
            ("age > 3 AND", 11, "expected an expression"),
            ("(age > 3", 8, "expected ')'"),
            ("age > 3)", 7, "expected the end of the format string"),
            ("name == 'Adam", 8, "unterminated string"),
            ("age ~ 3", 4, "unexpected character '~'"),
            ("age == 0x", 7, "invalid base-16 number"),
            ("age == 12abc", 7, "invalid number"),
            ("name CONTAINS[x] 'a'", 14, "unknown comparison option 'x'"),
            ("IN == 3", 0, "'IN' is a reserved word; write #IN"),
            ("age == %y", 7, "unknown format specifier"),
            ("age", 3, "expected a comparison operator"),
            ("foo(1) == 2", 0, "unknown function 'foo'"),
            ("sqrt(1, 2) == 2", 0, "takes 1 argument(s), not 2"),
            ("SUBQUERY(tags, x, x == 1).@count > 0", 15, "expected a $variable"),
            ("age == 3 &", 9, "expected '&&'"),
            ("$ == 1", 0, "expected a name after '$'"),
            ("name == 'a' %% 2", 12, "literal percent sign"),
            ("ANY tags", 8, "expected a comparison operator"),
            ("{1, 2 CONTAINS 1", 6, "expected ',' or '}'"),
            ("name == CAST('nope', 'NSUUID')", 8, "cannot cast"),
            ("FETCH(a, b, c) == 1", 0, "FETCH expressions are not supported"),
            ("", 0, "expected an expression"),
        ]
        for (format, offset, fragment) in table {
            guard let error = failure(format) else {
                Issue.record("\(format) parsed")
                continue
            }
            #expect(error.offset == offset, "\(format): offset \(error.offset), \(error.message)")
            #expect(error.message.contains(fragment), "\(format): \(error.message)")
            #expect(error.format == format)
        }
    }

    @Test("Offsets count Characters, not bytes")
    func offsetsCountCharacters() throws {
        let error = try #require(failure("name == 'Zoë' AND ~"))
        #expect(error.offset == 18)
    }

    @Test("%d given a String throws an argument error")
    func integerSpecifierRejectsString() throws {
        let error = try #require(failure("age == %d", ["thirty"]))
        #expect(error.code == .argument)
        #expect(error.offset == 7)
        #expect(error.message.contains("%d expects an integer, got String"))
    }

    @Test("Wrong argument types throw", arguments: [
        ("%K == 1", "%K expects a key path string"),
        ("age == %f", "%f expects a floating-point number"),
        ("age == %d", "%d expects an integer"),
        ("name == %s", "%s expects a string"),
        ("name == %c", "%c expects a character"),
    ])
    func wrongArgumentTypes(format: String, message: String) throws {
        let error = try #require(failure(format, [UUID()]))
        #expect(error.code == .argument)
        #expect(error.message.contains(message), "\(error.message)")
    }

    @Test("Too few arguments throws")
    func tooFewArguments() throws {
        let error = try #require(failure("name == %@ AND age > %d", ["Adam"]))
        #expect(error.code == .argument)
        #expect(error.offset == 21)
        #expect(error.message.contains("missing argument for %d"))
        #expect(failure("%K == %@") != nil)
    }

    @Test("Extra arguments are ignored, as Apple does")
    func extraArgumentsIgnored() throws {
        #expect(failure("name == %@", ["Adam", "Eve"]) == nil)
    }

    @Test("Quoted specifiers and variables are literals")
    func quotingPreventsSubstitution() throws {
        let predicate = try NSPredicate.parse(format: "name LIKE '%@' OR name == \"$X\"")
        #expect(predicate.predicateFormat == "name LIKE \"%@\" OR name == \"$X\"")
    }

    @Test("Nesting beyond the limit throws instead of overflowing the stack")
    func deepNestingThrows() throws {
        let deep = String(repeating: "(", count: 5000) + "a == 1" + String(repeating: ")", count: 5000)
        let error = try #require(failure(deep))
        #expect(error.code == .tooDeep)
        let nots = String(repeating: "NOT ", count: 5000) + "a == 1"
        #expect(failure(nots)?.code == .tooDeep)
        let minus = "a == " + String(repeating: "-", count: 5000) + "1"
        #expect(failure(minus)?.code == .tooDeep)
        let shallow = String(repeating: "(", count: 40) + "a == 1" + String(repeating: ")", count: 40)
        #expect(failure(shallow) == nil)
    }

    @Test("Errors bridge to NSError in NSCocoaErrorDomain")
    func bridgesToNSError() throws {
        let error = try #require(failure("age >"))
        let bridged = error as NSError
        #expect(bridged.domain == NSCocoaErrorDomain)
        #expect(bridged.code == CocoaError.formatting.rawValue)
        #expect(error.description.contains("offset 5"))
    }

    @Test("NSExpression.parse reports errors too")
    func expressionErrors() throws {
        #expect(throws: PredicateFormatError.self) { try NSExpression.parse(format: "1 +") }
        #expect(throws: PredicateFormatError.self) { try NSExpression.parse(format: "a == 1") }
    }
}
