import Foundation
import Testing
@testable import OpenCoreData

/// `BEGINSWITH`/`ENDSWITH` answer ASCII strings on their bytes; the answer must be the one
/// folding and `hasPrefix`/`hasSuffix` give.
@Suite("String operators")
struct StringMatchingTests {
    @Test("ASCII BEGINSWITH and ENDSWITH agree with folding for every option set")
    func asciiAffixesAgreeWithFolding() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("aAbBzZ \r\n0!~")
        func word(_ length: Int) -> String {
            String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
        }
        let optionSets: [NSComparisonPredicate.Options] = [[], .caseInsensitive, .diacriticInsensitive, [.caseInsensitive, .diacriticInsensitive], .normalized]
        for _ in 0..<4_000 {
            let subject = word(Int.random(in: 0...6, using: &generator))
            let affix = word(Int.random(in: 1...3, using: &generator))
            for options in optionSets {
                let folded = StringMatching.fold(subject, options), foldedAffix = StringMatching.fold(affix, options)
                #expect(StringMatching.beginsWith(subject, affix, options: options) == folded.hasPrefix(foldedAffix),
                        "\(subject.debugDescription) BEGINSWITH \(affix.debugDescription) \(options)")
                #expect(StringMatching.endsWith(subject, affix, options: options) == folded.hasSuffix(foldedAffix),
                        "\(subject.debugDescription) ENDSWITH \(affix.debugDescription) \(options)")
            }
        }
    }

    @Test("Non-ASCII strings still fold: case, diacritics and a CR LF pair")
    func nonASCIIStillFolds() {
        #expect(StringMatching.beginsWith("Äpfel", "ä", options: .caseInsensitive))
        #expect(!StringMatching.beginsWith("Äpfel", "a", options: .caseInsensitive))
        #expect(StringMatching.beginsWith("Äpfel", "a", options: [.caseInsensitive, .diacriticInsensitive]))
        #expect(!StringMatching.beginsWith("\r\nx", "\r", options: []))
        #expect(!StringMatching.endsWith("x\r\n", "\n", options: []))
        #expect(StringMatching.beginsWith("ABC", "ab", options: .caseInsensitive))
        #expect(!StringMatching.beginsWith("ABC", "ab", options: []))
        #expect(!StringMatching.beginsWith("abc", "", options: []))
    }

    @Test("MATCHES compares code points as ICU does without canonical equivalence: a decomposed pattern matches only decomposed text")
    func matchesIsNotNormalized() {
        let precomposed = "Zo\u{EB}", decomposed = "Zoe\u{308}"
        // Both spellings are compiled and cached in turn; neither may be served the other's regex.
        for _ in 0..<2 {
            #expect(StringMatching.matches(precomposed, pattern: precomposed, options: []))
            #expect(!StringMatching.matches(decomposed, pattern: precomposed, options: []))
            #expect(StringMatching.matches(decomposed, pattern: decomposed, options: []))
            #expect(!StringMatching.matches(precomposed, pattern: decomposed, options: []))
        }
        // `.` is one code point; `[d]` strips the diacritic from both sides first; `[n]` is exact.
        #expect(StringMatching.matches(precomposed, pattern: "Zo.", options: []))
        #expect(!StringMatching.matches(decomposed, pattern: "Zo.", options: []))
        #expect(StringMatching.matches(precomposed, pattern: decomposed, options: .diacriticInsensitive))
        #expect(StringMatching.matches(decomposed, pattern: "Zoe", options: .diacriticInsensitive))
        #expect(!StringMatching.matches(precomposed, pattern: decomposed, options: .normalized))
        let predicate = NSPredicate(format: "SELF MATCHES %@", decomposed)
        #expect(predicate.evaluate(with: decomposed) && !predicate.evaluate(with: precomposed))
    }
}
