import Foundation

/// Recognizes an item that is already canonical JSON, so seeding can store its bytes as they are.
///
/// Seeding stores canonical JSON (sorted keys, no escaped slashes), which it made by parsing every
/// item with `JSONSerialization` and writing it back: about 80% of `pagedb seed`'s time (perf, 200k
/// lines). A file written by `pagedb export` or `--generate` is canonical already. This scanner
/// accepts only text that the writer provably reproduces byte for byte, and says "not sure" (nil)
/// for everything else, which then takes the parse-and-rewrite path: no whitespace; ASCII strings
/// whose only escapes are `\"` and `\\`; integers of at most 15 digits (no fraction, exponent or
/// `-0`); `true`, `false`, `null`; keys made of `a-z`, `0-9` and `_`, in an order that the writer's
/// sort (case-insensitive, numeric) and byte order agree on: neighbours differ first at two
/// lowercase letters, or the shorter is a prefix of the longer followed by a letter.
enum CanonicalJSON {
    /// The most nested arrays and objects accepted; deeper text takes the slow path.
    static let maxDepth = 32

    /// The id under `idKey` of the object `bytes[range]`, when those bytes are canonical and the id is
    /// a non-empty string without escapes or an integer; nil when unsure.
    static func id(of bytes: UnsafeRawBufferPointer, in range: Range<Int>, idKey: [UInt8]) -> String? {
        idText(of: bytes, in: range, idKey: idKey).map { String(decoding: bytes[$0], as: UTF8.self) }
    }

    /// Where the id's text is in `bytes`, under the same conditions as ``id(of:in:idKey:)``: a check
    /// that makes no string (a seed's counting pass).
    static func idText(of bytes: UnsafeRawBufferPointer, in range: Range<Int>, idKey: [UInt8]) -> Range<Int>? {
        var scanner = Scanner(bytes: bytes, index: range.lowerBound, end: range.upperBound, idKey: idKey)
        guard scanner.object(depth: 0), scanner.index == range.upperBound else { return nil }
        return scanner.id
    }

    private struct Scanner {
        let bytes: UnsafeRawBufferPointer
        var index: Int
        let end: Int
        let idKey: [UInt8]
        var id: Range<Int>?

        init(bytes: UnsafeRawBufferPointer, index: Int, end: Int, idKey: [UInt8]) {
            self.bytes = bytes
            self.index = index
            self.end = end
            self.idKey = idKey
        }

        private var current: UInt8? { index < end ? bytes[index] : nil }

        private mutating func take(_ byte: UInt8) -> Bool {
            guard current == byte else { return false }
            index += 1
            return true
        }

        mutating func value(depth: Int) -> Bool {
            switch current {
            case UInt8(ascii: "{"): return object(depth: depth + 1)
            case UInt8(ascii: "["): return array(depth: depth + 1)
            case UInt8(ascii: "\""): return string() != nil
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            default: return number() != nil
            }
        }

        mutating func object(depth: Int) -> Bool {
            guard depth <= CanonicalJSON.maxDepth, take(UInt8(ascii: "{")) else { return false }
            if take(UInt8(ascii: "}")) { return true }
            var previous: Range<Int>?
            while true {
                guard let key = string(), isKeyText(key), take(UInt8(ascii: ":")) else { return false }
                if let previous, !inOrder(previous, key) { return false }
                previous = key
                if depth == 0, key.count == idKey.count, bytes[key].elementsEqual(idKey) {
                    guard let id = idValue() else { return false }
                    self.id = id
                } else if !value(depth: depth) {
                    return false
                }
                if take(UInt8(ascii: "}")) { return true }
                guard take(UInt8(ascii: ",")) else { return false }
            }
        }

        mutating func array(depth: Int) -> Bool {
            guard depth <= CanonicalJSON.maxDepth, take(UInt8(ascii: "[")) else { return false }
            if take(UInt8(ascii: "]")) { return true }
            while true {
                guard value(depth: depth) else { return false }
                if take(UInt8(ascii: "]")) { return true }
                guard take(UInt8(ascii: ",")) else { return false }
            }
        }

        /// A string's contents (between the quotes), or nil when it is not canonical.
        mutating func string() -> Range<Int>? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = index
            while index < end {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return start..<(index - 1)
                }
                if byte == UInt8(ascii: "\\") {
                    // The writer escapes only these two among printable ASCII (slashes are not escaped).
                    guard index + 1 < end,
                        bytes[index + 1] == UInt8(ascii: "\"") || bytes[index + 1] == UInt8(ascii: "\\")
                    else { return nil }
                    index += 2
                    continue
                }
                // Control characters, DEL and non-ASCII: the writer's rules for them are not assumed.
                guard byte >= 0x20, byte < 0x7F else { return nil }
                index += 1
            }
            return nil
        }

        /// An integer's text, or nil when it is not a canonical integer.
        mutating func number() -> Range<Int>? {
            let start = index
            _ = take(UInt8(ascii: "-"))
            let digits = index
            while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
            let count = index - digits
            guard count > 0, count <= 15, bytes[digits] != UInt8(ascii: "0") || count == 1 else { return nil }
            // "-0" reads back as 0; a fraction or exponent may be written differently.
            if digits > start, count == 1, bytes[digits] == UInt8(ascii: "0") { return nil }
            if let byte = current, byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                return nil
            }
            return start..<index
        }

        mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard end - index >= count else { return false }
            let matches = UnsafeBufferPointer(start: word.utf8Start, count: count).elementsEqual(
                bytes[index..<(index + count)])
            if matches { index += count }
            return matches
        }

        /// The id's text: a non-empty string without escapes, or an integer (as its digits).
        mutating func idValue() -> Range<Int>? {
            if current == UInt8(ascii: "\"") {
                guard let text = string(), !text.isEmpty, !bytes[text].contains(UInt8(ascii: "\\")) else { return nil }
                return text
            }
            return number()
        }

        private func isKeyText(_ key: Range<Int>) -> Bool {
            bytes[key].allSatisfy { byte in
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                    || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
            }
        }

        /// Whether `first` sorts before `second` in both the writer's order and byte order, provably.
        private func inOrder(_ first: Range<Int>, _ second: Range<Int>) -> Bool {
            var offset = 0
            while true {
                let a = first.lowerBound + offset
                let b = second.lowerBound + offset
                guard b < second.upperBound else { return false }
                guard a < first.upperBound else { return Self.isLetter(bytes[b]) }
                if bytes[a] != bytes[b] {
                    return Self.isLetter(bytes[a]) && Self.isLetter(bytes[b]) && bytes[a] < bytes[b]
                }
                offset += 1
            }
        }

        private static func isLetter(_ byte: UInt8) -> Bool {
            byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")
        }
    }
}
