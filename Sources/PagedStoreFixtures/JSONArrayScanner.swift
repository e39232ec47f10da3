/// Splits a top-level JSON array into the byte ranges of its elements without parsing them, so that
/// each element can be parsed on its own and an error can name the element's line and column.
///
/// It tracks only strings (with escapes) and nesting; the elements themselves are validated by the
/// JSON parser afterwards.
enum JSONArrayScanner {
    /// Calls `body` with the byte range of each element of the array that `bytes` holds, in order,
    /// without keeping them: a fixture of ten million items is scanned in constant memory. `body`
    /// returns false to stop early. Structural errors are thrown through `fail` (offset, reason).
    static func forEachElement(
        of bytes: UnsafeRawBufferPointer, fail: (Int, String) -> FixtureError,
        _ body: (Range<Int>) throws(FixtureError) -> Bool
    ) throws(FixtureError) {
        var index = skipSpace(bytes, from: 0)
        guard index < bytes.count, bytes[index] == UInt8(ascii: "[") else {
            throw fail(index, "expected a JSON array")
        }
        index += 1
        var count = 0
        var depth = 0
        var inString = false
        var escaped = false
        var start: Int?
        while index < bytes.count {
            let byte = bytes[index]
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else {
                switch byte {
                case UInt8(ascii: "\""):
                    inString = true
                    if start == nil { start = index }
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    depth += 1
                    if start == nil { start = index }
                case UInt8(ascii: "]") where depth == 0, UInt8(ascii: ",") where depth == 0:
                    if let first = start {
                        count += 1
                        guard try body(first..<trimEnd(bytes, first, index)) else { return }
                    } else if byte == UInt8(ascii: ",") || count > 0 {
                        throw fail(index, "expected a value before '\(Character(UnicodeScalar(byte)))'")
                    }
                    start = nil
                    if byte == UInt8(ascii: "]") {
                        let rest = skipSpace(bytes, from: index + 1)
                        guard rest == bytes.count else { throw fail(rest, "unexpected text after the array") }
                        return
                    }
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    depth -= 1
                case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                    break
                default:
                    if start == nil { start = index }
                }
            }
            index += 1
        }
        throw fail(bytes.count, "the file ends inside the array (truncated?)")
    }

    static func skipSpace(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        var index = start
        while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
        return index
    }

    private static func trimEnd(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> Int {
        var index = end
        while index > start, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index - 1]) { index -= 1 }
        return index
    }
}
