import PagedStore

/// Strings, read as Foundation reads them and written as it writes them.
extension CanonicalJSON {
    /// Writes the string at the current `"`: UTF-8 as it is, escapes decoded and written again by
    /// Foundation's rules. False for anything Foundation refuses (a control character, invalid
    /// UTF-8, a bad escape, a lone surrogate) and for a raw byte order mark, which Foundation drops
    /// from the start of a run of text between escapes.
    mutating func string() -> Bool {
        index += 1
        output.append(UInt8(ascii: "\""))
        while index < end {
            // A run of printable ASCII other than `"` and `\` is copied in one go.
            let run = index
            while index < end, bytes[index] >= 0x20, bytes[index] < 0x80, bytes[index] != UInt8(ascii: "\""),
                bytes[index] != UInt8(ascii: "\\")
            {
                index += 1
            }
            if index > run { output.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[run..<index])) }
            guard index < end else { return false }
            switch bytes[index] {
            case UInt8(ascii: "\""):
                index += 1
                output.append(UInt8(ascii: "\""))
                return true
            case UInt8(ascii: "\\"):
                guard escape() else { return false }
            case 0x80...0xFF:
                guard copyUTF8Sequence() else { return false }
            default:
                return false
            }
        }
        return false
    }

    /// Copies one well-formed UTF-8 sequence (not a byte order mark); false for anything else.
    private mutating func copyUTF8Sequence() -> Bool {
        let lead = bytes[index]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            high = 0x9F
        case 0xF0:
            length = 4
            low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            high = 0x8F
        default: return false
        }
        guard end - index >= length, bytes[index + 1] >= low, bytes[index + 1] <= high else { return false }
        for offset in 2..<max(length, 2) where bytes[index + offset] & 0xC0 != 0x80 { return false }
        if lead == 0xEF, bytes[index + 1] == 0xBB, bytes[index + 2] == 0xBF { return false }
        output.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<(index + length)]))
        index += length
        return true
    }

    /// Reads the escape at the current `\` and writes its character.
    private mutating func escape() -> Bool {
        guard end - index >= 2 else { return false }
        let letter = bytes[index + 1]
        index += 2
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"):
            output.append(UInt8(ascii: "\\"))
            output.append(letter)
        case UInt8(ascii: "/"): output.append(letter)
        case UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            output.append(UInt8(ascii: "\\"))
            output.append(letter)
        case UInt8(ascii: "u"):
            guard let unit = hexUnit() else { return false }
            var scalar = UInt32(unit)
            if unit >= 0xD800, unit < 0xDC00 {
                guard end - index >= 2, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else { return false }
                index += 2
                guard let second = hexUnit(), second >= 0xDC00, second < 0xE000 else { return false }
                scalar = 0x10000 + (UInt32(unit) - 0xD800) << 10 + (UInt32(second) - 0xDC00)
            } else if (unit >= 0xDC00 && unit < 0xE000) || unit == 0xFEFF {
                // A byte order mark is one more character Foundation may drop (see `string()`).
                return false
            }
            Self.write(scalar, to: &output)
        default:
            return false
        }
        return true
    }

    /// The four hex digits after `\u`.
    private mutating func hexUnit() -> UInt16? {
        guard end - index >= 4, let unit = JSONUnicodeEscape.unit(at: index, in: bytes) else { return nil }
        index += 4
        return unit
    }

    /// Writes one Unicode scalar inside a string as Foundation does: `"` and `\` escaped, the
    /// control characters below U+0020 as `\b`, `\f`, `\n`, `\r`, `\t` or `\u00xx`, the rest as UTF-8.
    static func write(_ scalar: UInt32, to output: inout [UInt8]) {
        switch scalar {
        case 0x22, 0x5C:
            output.append(UInt8(ascii: "\\"))
            output.append(UInt8(truncatingIfNeeded: scalar))
        case 0x08: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
        case 0x0C: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
        case 0x0A: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
        case 0x0D: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
        case 0x09: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
        case 0..<0x20:
            output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            output.append(hexDigit(scalar >> 4))
            output.append(hexDigit(scalar & 0xF))
        case 0x20..<0x80:
            output.append(UInt8(truncatingIfNeeded: scalar))
        case 0x80..<0x800:
            output.append(UInt8(truncatingIfNeeded: 0xC0 | scalar >> 6))
            output.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            output.append(UInt8(truncatingIfNeeded: 0xE0 | scalar >> 12))
            output.append(UInt8(truncatingIfNeeded: 0x80 | scalar >> 6 & 0x3F))
            output.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
        default:
            output.append(UInt8(truncatingIfNeeded: 0xF0 | scalar >> 18))
            output.append(UInt8(truncatingIfNeeded: 0x80 | scalar >> 12 & 0x3F))
            output.append(UInt8(truncatingIfNeeded: 0x80 | scalar >> 6 & 0x3F))
            output.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
        }
    }

    /// A lowercase hex digit, as Foundation writes `\u00xx`.
    private static func hexDigit(_ value: UInt32) -> UInt8 {
        let digit = UInt8(truncatingIfNeeded: value & 0xF)
        return digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
    }

    /// A string's contents as Foundation writes them (a key's text, compared with what was written).
    static func escaped(_ text: String) -> [UInt8] {
        var output: [UInt8] = []
        for scalar in text.unicodeScalars { write(scalar.value, to: &output) }
        return output
    }
}
