import Foundation

/// ISO 8601 dates in UTC that round-trip Core Data's dates exactly.
///
/// Core Data keeps a date as a `Double` of seconds since 2001-01-01. `ISO8601DateFormatter` stops
/// at milliseconds, so this writes as many fractional digits as the `Double` needs to read back
/// unchanged (usually six or fewer; more for instants within weeks of 2001-01-01, where a `Double`
/// is finer than a nanosecond): `2018-09-22T11:35:41.249889Z`.
enum ISO8601 {
    private static let referenceToUnix: Int64 = 978_307_200

    /// The date as `YYYY-MM-DDTHH:MM:SS[.f…]Z`, with the fewest fractional digits that read back
    /// to the same `Double`.
    static func format(_ date: Date) -> String {
        let seconds = date.timeIntervalSinceReferenceDate
        guard seconds.isFinite, abs(seconds) < 1e14 else { return "\(seconds)" }
        var whole = seconds.rounded(.down)
        var fraction = ""
        let remainder = seconds - whole
        if remainder > 0 {
            // Near 2001 a Double is finer than a nanosecond, so up to 40 digits may be needed.
            for digits in 1...40 {
                var candidateWhole = whole
                var text = String(format: "%.\(digits)f", remainder)
                if text.hasPrefix("1") {
                    candidateWhole += 1
                    text = ""
                } else {
                    text = String(text.dropFirst(2))
                    while text.hasSuffix("0") { text.removeLast() }
                }
                let readBack = candidateWhole + (text.isEmpty ? 0 : Double("0." + text)!)
                if readBack == seconds || digits == 40 {
                    whole = candidateWhole
                    fraction = text
                    break
                }
            }
        }
        let unix = Int64(whole) + referenceToUnix
        let days = floorDivide(unix, 86_400)
        let secondOfDay = unix - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        var text = yearText(year) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
        text += pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
        if !fraction.isEmpty { text += "." + fraction }
        return text + "Z"
    }

    /// Parses `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM[:SS[.f…]]` with `Z`, `±HH:MM` or `±HHMM` (a date-time
    /// without a zone is UTC). Returns nil for anything else, including out-of-range fields.
    static func parse(_ text: String) -> Date? {
        var scanner = Scanner(Array(text.utf8))
        let negativeYear = scanner.take("-")
        if !negativeYear { _ = scanner.take("+") }
        guard let yearDigits = scanner.digits(min: 4, max: 6), scanner.take("-"),
              let month = scanner.digits(min: 2, max: 2), scanner.take("-"),
              let day = scanner.digits(min: 2, max: 2) else { return nil }
        let year = negativeYear ? -yearDigits : yearDigits
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day) else { return nil }
        var secondOfDay: Int64 = 0
        var fraction = 0.0
        var offset: Int64 = 0
        if !scanner.atEnd {
            guard scanner.take("T") || scanner.take("t") || scanner.take(" "),
                  let hour = scanner.digits(min: 2, max: 2), scanner.take(":"),
                  let minute = scanner.digits(min: 2, max: 2), hour < 24, minute < 60 else { return nil }
            var second: Int64 = 0
            if scanner.take(":") {
                guard let value = scanner.digits(min: 2, max: 2), value < 60 else { return nil }
                second = value
                if scanner.take(".") || scanner.take(",") {
                    guard let digits = scanner.digitText(), let value = Double("0." + digits) else { return nil }
                    fraction = value
                }
            }
            secondOfDay = hour * 3600 + minute * 60 + second
            if scanner.take("Z") || scanner.take("z") {
                // UTC
            } else if !scanner.atEnd {
                let sign: Int64
                if scanner.take("+") { sign = 1 } else if scanner.take("-") { sign = -1 } else { return nil }
                guard let hours = scanner.digits(min: 2, max: 2), hours < 24 else { return nil }
                _ = scanner.take(":")
                guard let minutes = scanner.digits(min: 2, max: 2), minutes < 60 else { return nil }
                offset = sign * (hours * 3600 + minutes * 60)
            }
        }
        guard scanner.atEnd else { return nil }
        let unix = days(fromCivil: year, month, day) * 86_400 + secondOfDay - offset
        return Date(timeIntervalSinceReferenceDate: Double(unix - referenceToUnix) + fraction)
    }

    // MARK: - Calendar arithmetic (proleptic Gregorian, Howard Hinnant's algorithms)

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }

    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    private static func yearText(_ year: Int64) -> String {
        if (0...9999).contains(year) { return pad(year, 4) }
        return (year < 0 ? "-" : "+") + pad(abs(year), 6)
    }

    private struct Scanner {
        let bytes: [UInt8]
        var position = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { position == bytes.count }

        mutating func take(_ character: Character) -> Bool {
            guard position < bytes.count, let ascii = character.asciiValue, bytes[position] == ascii else { return false }
            position += 1
            return true
        }

        mutating func digitText() -> String? {
            let start = position
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
            return position > start ? String(decoding: bytes[start..<position], as: UTF8.self) : nil
        }

        mutating func digits(min: Int, max: Int) -> Int64? {
            let start = position
            while position < bytes.count, position - start < max, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
            guard position - start >= min else { return nil }
            return Int64(String(decoding: bytes[start..<position], as: UTF8.self))
        }
    }
}
