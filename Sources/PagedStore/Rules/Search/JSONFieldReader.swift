import Foundation

/// The strings at one path of a JSON document, read by walking its bytes: what ``SearchText`` reads
/// from every searchable row a write indexes, without building the whole document as objects
/// (`JSONSerialization` did, and it was most of the cost of reading a row's text).
///
/// It answers only for strict JSON (RFC 8259) that `JSONSerialization` reads the same way, and
/// says nothing (nil) for anything else, so that the caller asks `JSONSerialization`, which decides:
/// a byte-order mark, invalid UTF-8, a lone surrogate, a trailing comma, a control character in a
/// string, an exponent or a very long number (which `JSONSerialization` refuses when out of range),
/// nesting deeper than ``maximumDepth``. Duplicate keys: the last one counts, as in
/// `JSONSerialization`. Pure.
struct JSONFieldReader {
    /// The deepest nesting it walks; deeper documents are left to `JSONSerialization`.
    static let maximumDepth = 64
    /// The longest number it checks; longer ones are left to `JSONSerialization`.
    static let maximumNumberLength = 24

    /// The strings at each of `paths` in `payload`, path after path, each path's in document order
    /// (every element of an array met on the way, or at the end, is followed), or nil when the
    /// reader cannot say. The bytes are checked as UTF-8 once, then walked once a path.
    static func strings(at paths: [ArraySlice<Substring>], in payload: Data) -> [String]? {
        payload.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            if bytes.contains(where: { $0 >= 0x80 }), !isValidUTF8(bytes) { return nil }
            var found: [String] = []
            for path in paths {
                var reader = Walk(bytes: bytes)
                guard reader.value(at: path, into: &found, depth: 0) else { return nil }
                reader.skipWhitespace()
                guard reader.index == bytes.count else { return nil }
            }
            return found
        }
    }

    /// Whether `bytes` are UTF-8 as written: decoding them repairs nothing.
    private static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        String(decoding: bytes, as: UTF8.self).utf8.elementsEqual(bytes)
    }

    /// One walk of a document. Every function returns false where the reader cannot say.
    private struct Walk {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipWhitespace() {
            while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
        }

        /// Reads one value, adding the strings at `path` in it to `found`; a nil `path` skips it.
        mutating func value(at path: ArraySlice<Substring>?, into found: inout [String], depth: Int) -> Bool {
            skipWhitespace()
            guard let byte = current, depth < JSONFieldReader.maximumDepth else { return false }
            switch byte {
            case UInt8(ascii: "["):
                return array(at: path, into: &found, depth: depth)
            case UInt8(ascii: "{"):
                return object(at: path, into: &found, depth: depth)
            case UInt8(ascii: "\""):
                let wanted = path?.isEmpty == true
                guard let string = string(decoding: wanted) else { return false }
                if wanted { found.append(string) }
                return true
            case UInt8(ascii: "t"):
                return literal("true")
            case UInt8(ascii: "f"):
                return literal("false")
            case UInt8(ascii: "n"):
                return literal("null")
            default:
                return number()
            }
        }

        private mutating func array(at path: ArraySlice<Substring>?, into found: inout [String], depth: Int) -> Bool {
            elements(closedBy: UInt8(ascii: "]")) { walk in walk.value(at: path, into: &found, depth: depth + 1) }
        }

        private mutating func object(at path: ArraySlice<Substring>?, into found: inout [String], depth: Int) -> Bool {
            // The member that the path goes through; a later one of the same key replaces it.
            var member: [String] = []
            let read = elements(closedBy: UInt8(ascii: "}")) { walk in
                walk.skipWhitespace()
                guard walk.current == UInt8(ascii: "\""), let key = walk.string(decoding: path?.isEmpty == false)
                else { return false }
                walk.skipWhitespace()
                guard walk.current == UInt8(ascii: ":") else { return false }
                walk.index += 1
                guard let path, let wanted = path.first, key == wanted else {
                    return walk.value(at: nil, into: &member, depth: depth + 1)
                }
                var strings: [String] = []
                guard walk.value(at: path.dropFirst(), into: &strings, depth: depth + 1) else { return false }
                member = strings
                return true
            }
            found += member
            return read
        }

        /// Reads the elements of the array or the members of the object that opens here, each with
        /// `element`, separated by commas, up to `close`.
        private mutating func elements(closedBy close: UInt8, _ element: (inout Walk) -> Bool) -> Bool {
            index += 1
            skipWhitespace()
            if current == close {
                index += 1
                return true
            }
            while true {
                guard element(&self) else { return false }
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): index += 1
                case close?:
                    index += 1
                    return true
                default: return false
                }
            }
        }

        /// Reads a string at the current quote: nil when the reader cannot say, and empty when not
        /// `decoding` (checked, not built).
        private mutating func string(decoding: Bool) -> String? {
            index += 1
            let start = index
            var escaped: [UInt8]? = nil
            while let byte = current {
                switch byte {
                case UInt8(ascii: "\""):
                    defer { index += 1 }
                    guard decoding else { return "" }
                    if let escaped { return String(decoding: escaped, as: UTF8.self) }
                    return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                case UInt8(ascii: "\\"):
                    if decoding, escaped == nil { escaped = Array(bytes[start..<index]) }
                    index += 1
                    guard let unescaped = escape() else { return nil }
                    escaped?.append(contentsOf: unescaped)
                case ..<0x20:
                    return nil
                default:
                    escaped?.append(byte)
                    index += 1
                }
            }
            return nil
        }

        /// Reads the escape after a backslash, as UTF-8.
        private mutating func escape() -> [UInt8]? {
            guard let byte = current else { return nil }
            index += 1
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return [byte]
            case UInt8(ascii: "b"): return [0x08]
            case UInt8(ascii: "f"): return [0x0C]
            case UInt8(ascii: "n"): return [0x0A]
            case UInt8(ascii: "r"): return [0x0D]
            case UInt8(ascii: "t"): return [0x09]
            case UInt8(ascii: "u"):
                guard let unit = hexUnit() else { return nil }
                var value = UInt32(unit)
                if (0xD800..<0xDC00).contains(unit) {
                    guard current == UInt8(ascii: "\\") else { return nil }
                    index += 1
                    guard current == UInt8(ascii: "u") else { return nil }
                    index += 1
                    guard let low = hexUnit(), (0xDC00..<0xE000).contains(low) else { return nil }
                    value = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                } else if (0xDC00..<0xE000).contains(unit) {
                    return nil
                }
                guard let scalar = Unicode.Scalar(value) else { return nil }
                return Array(String(Character(scalar)).utf8)
            default:
                return nil
            }
        }

        /// Reads four hexadecimal digits.
        private mutating func hexUnit() -> UInt16? {
            guard let unit = JSONUnicodeEscape.unit(at: index, in: UnsafeRawBufferPointer(bytes)) else { return nil }
            index += 4
            return unit
        }

        private mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
            index += count
            return true
        }

        /// Checks a number: `-`, an integer part without leading zeros, an optional fraction; an
        /// exponent, or more than ``JSONFieldReader/maximumNumberLength`` characters, are left to
        /// `JSONSerialization`, which refuses a number out of range.
        private mutating func number() -> Bool {
            let start = index
            if current == UInt8(ascii: "-") { index += 1 }
            guard let first = current, isDigit(first) else { return false }
            index += 1
            if first != UInt8(ascii: "0") { skipDigits() }
            if current == UInt8(ascii: ".") {
                index += 1
                guard let digit = current, isDigit(digit) else { return false }
                skipDigits()
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") { return false }
            return index - start <= JSONFieldReader.maximumNumberLength
        }

        private mutating func skipDigits() {
            while let byte = current, isDigit(byte) { index += 1 }
        }

        private func isDigit(_ byte: UInt8) -> Bool {
            byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
        }
    }
}
