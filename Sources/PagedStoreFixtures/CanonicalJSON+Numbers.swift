/// Numbers, read as Foundation reads them and written as it writes them.
extension CanonicalJSON {
    /// Writes a number as Foundation writes what it read: an integer that fits 64 bits as its digits
    /// (`-0` as `0`), another number as Swift prints the `Double`, without a final `.0`.
    /// - Returns: The number's text in the input, or nil when unsure or invalid.
    mutating func number() -> Range<Int>? {
        lastNumberWasInteger = false
        let start = index
        _ = take(UInt8(ascii: "-"))
        guard let first = current, Self.isDigit(first) else { return nil }
        index += 1
        if first == UInt8(ascii: "0") {
            if let next = current, Self.isDigit(next) { return nil }
        } else {
            skipDigits()
        }
        var integer = true
        if take(UInt8(ascii: ".")) {
            guard skipDigits() else { return nil }
            integer = false
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard skipDigits() else { return nil }
            integer = false
        }
        let text = bytes[start..<index]
        if integer {
            // Foundation reads at most 19 characters as an Int64 and 20 as a UInt64, then a Decimal.
            if text.count == 2, first == UInt8(ascii: "0"), text.first == UInt8(ascii: "-") {
                output.append(UInt8(ascii: "0"))
            } else if text.first == UInt8(ascii: "-") ? text.count <= 19 : Self.fitsUInt64(text) {
                output.append(contentsOf: UnsafeRawBufferPointer(rebasing: text))
            } else {
                return nil
            }
            lastNumberWasInteger = true
            return start..<index
        }
        // Foundation keeps more than 17 characters before a lowercase `e` as a Decimal.
        let beforeExponent = (text.firstIndex(of: UInt8(ascii: "e")) ?? index) - start
        guard beforeExponent <= 17, let double = Double(String(decoding: text, as: UTF8.self)), double.isFinite
        else { return nil }
        var printed = double.description
        if printed.hasSuffix(".0") { printed.removeLast(2) }
        output.append(contentsOf: printed.utf8)
        return start..<index
    }

    /// Skips digits; whether there was one.
    @discardableResult
    private mutating func skipDigits() -> Bool {
        let start = index
        while let byte = current, Self.isDigit(byte) { index += 1 }
        return index > start
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// Whether unsigned digits (no leading zero) are at most `UInt64.max`.
    private static func fitsUInt64(_ digits: Slice<UnsafeRawBufferPointer>) -> Bool {
        guard digits.count <= 20 else { return false }
        var value: UInt64 = 0
        for digit in digits {
            let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times10.addingReportingOverflow(UInt64(digit - UInt8(ascii: "0")))
            guard !overflow, !carry else { return false }
            value = sum
        }
        return true
    }
}
