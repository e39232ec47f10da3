/// JSON's `\u` escape, read the one way by every reader of JSON bytes in the package.
package enum JSONUnicodeEscape {
    /// The UTF-16 unit written as the four hexadecimal digits at `index` in `bytes`; nil when they
    /// are not four hexadecimal digits.
    package static func unit(at index: Int, in bytes: UnsafeRawBufferPointer) -> UInt16? {
        guard index >= 0, bytes.count - index >= 4 else { return nil }
        var unit: UInt16 = 0
        for offset in 0..<4 {
            let byte = bytes[index + offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            unit = unit << 4 | UInt16(digit)
        }
        return unit
    }
}
