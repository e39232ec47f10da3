import Foundation

/// Writes an item's canonical JSON in one pass over its bytes: what `JSONSerialization` writes with
/// `.sortedKeys` and `.withoutEscapingSlashes` after reading the item, byte for byte, without the
/// Foundation objects in between.
///
/// Parsing every item into `NSDictionary`s and writing it back was nearly all of a seed's time for
/// ordinary JSON (spaces, keys in any order, `\u` escapes). This writer copies what needs no change
/// and rewrites the rest by Foundation's rules: whitespace dropped; strings with only `"`, `\`,
/// `\b`, `\f`, `\n`, `\r`, `\t` and other control characters (`\u00xx`) escaped, everything else as
/// UTF-8; integers as their digits (`-0` as `0`); other numbers as Swift prints the `Double` (without
/// a final `.0`); keys in the order of ``CanonicalKeyOrder``.
///
/// It answers only what it is sure of: anything Foundation might read or write differently (a
/// trailing comma, an integer too long for 64 bits, a number that Foundation keeps as a `Decimal`, a
/// raw byte order mark, a repeated key) and anything invalid makes it say "not sure" (false), and
/// the caller then takes Foundation's path, which also reports every error.
package struct CanonicalJSON {
    /// The most nested arrays and objects written here; deeper text takes Foundation's path.
    package static let maxDepth = 64

    /// The canonical JSON of the last item written.
    package internal(set) var output: [UInt8] = []
    /// The last item's id: a string's contents (without escapes), or an integer's digits.
    package private(set) var id: ArraySlice<UInt8> = []
    /// The last item's section, when the reader has a section key and the item a string under it.
    package private(set) var section: ArraySlice<UInt8>?

    private let idKey: [UInt8]
    private let sectionKey: [UInt8]?
    private var keyOrder = CanonicalKeyOrder()
    /// For each object being written, from the outermost: where each member starts, where its key
    /// ends, and where it ends, in ``output``.
    private var members: [Int] = []
    private var scratch: [UInt8] = []
    private var hasID = false
    private var sortingKeys = true
    /// Whether the last value written was a number Foundation reads as an integer (an id may be one).
    var lastNumberWasInteger = false
    // The text being read, shared with the readers of strings and numbers (the other two files).
    var bytes = UnsafeRawBufferPointer(start: nil, count: 0)
    var index = 0
    var end = 0

    /// A writer for items whose id is under `idKey`, and their section under `sectionKey`.
    package init(idKey: String, sectionKey: String? = nil) {
        self.idKey = Self.escaped(idKey)
        self.sectionKey = sectionKey.map(Self.escaped)
        output.reserveCapacity(4096)
    }

    /// Writes the canonical JSON of the object `bytes[range]` into ``output``, with its ``id`` and
    /// ``section``; false when unsure or invalid (Foundation's path decides and reports).
    ///
    /// With `sortingKeys` false, only checks it: ``output`` keeps the keys in the order read. What
    /// sorting adds is only a "not sure" for a repeated key, which Foundation accepts too, so a
    /// check tells valid from invalid as a write does (a seed's counting pass).
    package mutating func write(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, sortingKeys: Bool = true) -> Bool
    {
        guard range.lowerBound >= 0 else { return false }
        self.sortingKeys = sortingKeys
        self.bytes = bytes
        index = range.lowerBound
        end = min(range.upperBound, bytes.count)
        output.removeAll(keepingCapacity: true)
        members.removeAll(keepingCapacity: true)
        hasID = false
        section = nil
        skipSpace()
        guard current == UInt8(ascii: "{"), object(depth: 1), hasID else { return false }
        skipSpace()
        return index == end
    }

    // MARK: - Structure

    var current: UInt8? { index < end ? bytes[index] : nil }

    mutating func take(_ byte: UInt8) -> Bool {
        guard current == byte else { return false }
        index += 1
        return true
    }

    /// JSON's whitespace: space, tab, line feed, carriage return.
    private mutating func skipSpace() {
        while let byte = current,
            byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
        {
            index += 1
        }
    }

    private mutating func value(depth: Int) -> Bool {
        guard let byte = current else { return false }
        switch byte {
        case UInt8(ascii: "{"): return object(depth: depth + 1)
        case UInt8(ascii: "["): return array(depth: depth + 1)
        case UInt8(ascii: "\""): return string()
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number() != nil
        default: return false
        }
    }

    private mutating func object(depth: Int) -> Bool {
        guard depth <= Self.maxDepth else { return false }
        index += 1
        let open = output.count
        output.append(UInt8(ascii: "{"))
        skipSpace()
        if take(UInt8(ascii: "}")) {
            output.append(UInt8(ascii: "}"))
            return true
        }
        let base = members.count
        while true {
            let start = output.count
            guard current == UInt8(ascii: "\""), string() else { return false }
            let keyEnd = output.count
            skipSpace()
            guard take(UInt8(ascii: ":")) else { return false }
            output.append(UInt8(ascii: ":"))
            skipSpace()
            let valueStart = output.count
            guard value(depth: depth) else { return false }
            if depth == 1, !record(key: (start + 1)..<(keyEnd - 1), value: valueStart..<output.count) { return false }
            members.append(start)
            members.append(keyEnd)
            members.append(output.count)
            skipSpace()
            if take(UInt8(ascii: "}")) { break }
            // A trailing comma, which Foundation accepts, takes its path: the next byte is no key.
            guard take(UInt8(ascii: ",")) else { return false }
            output.append(UInt8(ascii: ","))
            skipSpace()
        }
        guard !sortingKeys || sortMembers(from: base, openedAt: open) else { return false }
        members.removeSubrange(base...)
        output.append(UInt8(ascii: "}"))
        return true
    }

    /// Puts the members written since `base` in Foundation's key order; false when two keys are one
    /// to Foundation (a repeated key: which one it keeps is its own business).
    private mutating func sortMembers(from base: Int, openedAt open: Int) -> Bool {
        let count = (members.count - base) / 3
        guard count > 1 else { return true }
        if inProvableOrder(from: base, count: count) { return true }
        scratch.removeAll(keepingCapacity: true)
        for member in 0..<count {
            let start = members[base + member * 3]
            let keyEnd = members[base + member * 3 + 1]
            if member > 0 { scratch.append(CanonicalKeyOrder.separator) }
            scratch.append(contentsOf: output[(start + 1)..<(keyEnd - 1)])
        }
        guard let order = keyOrder.order(ofKeys: scratch, count: count) else { return false }
        if order.elementsEqual(0..<count) { return true }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: output[(open + 1)...])
        output.removeSubrange((open + 1)...)
        for (position, member) in order.enumerated() {
            if position > 0 { output.append(UInt8(ascii: ",")) }
            let start = members[base + member * 3] - open - 1
            let memberEnd = members[base + member * 3 + 2] - open - 1
            output.append(contentsOf: scratch[start..<memberEnd])
        }
        return true
    }

    /// Whether the keys written since `base` are in Foundation's order already, by a rule cheap enough
    /// for every object of canonical input: each key is made of `a-z`, `0-9` and `_`, and differs
    /// from the next first at two lowercase letters, in order, or is a prefix of it followed by a
    /// letter. Any other list asks ``CanonicalKeyOrder``.
    private func inProvableOrder(from base: Int, count: Int) -> Bool {
        for member in 1..<count {
            let first = (members[base + member * 3 - 3] + 1)..<(members[base + member * 3 - 2] - 1)
            let second = (members[base + member * 3] + 1)..<(members[base + member * 3 + 1] - 1)
            guard Self.isPlainKey(output[first]), Self.isPlainKey(output[second]),
                Self.provablyBefore(output[first], output[second])
            else { return false }
        }
        return true
    }

    private static func isPlainKey(_ key: ArraySlice<UInt8>) -> Bool {
        key.allSatisfy { isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "_") }
    }

    private static func provablyBefore(_ first: ArraySlice<UInt8>, _ second: ArraySlice<UInt8>) -> Bool {
        var a = first.startIndex
        var b = second.startIndex
        while a < first.endIndex, b < second.endIndex, first[a] == second[b] {
            a += 1
            b += 1
        }
        guard b < second.endIndex else { return false }
        guard a < first.endIndex else { return isLetter(second[b]) }
        return isLetter(first[a]) && isLetter(second[b]) && first[a] < second[b]
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")
    }

    /// Keeps the id and the section of the item (a top-level member); false when they are not a
    /// plain string or an integer (Foundation's path then says what is wrong with them).
    private mutating func record(key: Range<Int>, value: Range<Int>) -> Bool {
        let isID = output[key].elementsEqual(idKey)
        let isSection = sectionKey.map { output[key].elementsEqual($0) } ?? false
        guard isID || isSection else { return true }
        var text = output[value]
        if text.first == UInt8(ascii: "\"") {
            text = text.dropFirst().dropLast()
            // An escaped character would have to be unescaped to be the id; rare enough for Foundation.
            guard !text.contains(UInt8(ascii: "\\")) else { return false }
        } else {
            // Only a number starts with a digit or a minus, and the last number written is this one.
            let isNumber = text.first.map { Self.isDigit($0) || $0 == UInt8(ascii: "-") } ?? false
            guard isID, isNumber, lastNumberWasInteger else { return false }
        }
        if isID {
            guard !text.isEmpty else { return false }
            id = text
            hasID = true
        }
        if isSection { section = text }
        return true
    }

    private mutating func array(depth: Int) -> Bool {
        guard depth <= Self.maxDepth else { return false }
        index += 1
        output.append(UInt8(ascii: "["))
        skipSpace()
        if take(UInt8(ascii: "]")) {
            output.append(UInt8(ascii: "]"))
            return true
        }
        while true {
            guard value(depth: depth) else { return false }
            skipSpace()
            if take(UInt8(ascii: "]")) {
                output.append(UInt8(ascii: "]"))
                return true
            }
            guard take(UInt8(ascii: ",")) else { return false }
            output.append(UInt8(ascii: ","))
            skipSpace()
        }
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard end - index >= count,
            UnsafeBufferPointer(start: word.utf8Start, count: count).elementsEqual(bytes[index..<(index + count)])
        else { return false }
        output.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<(index + count)]))
        index += count
        lastNumberWasInteger = false
        return true
    }
}
