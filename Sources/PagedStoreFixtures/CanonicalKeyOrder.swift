import Foundation

/// The order in which `JSONSerialization`'s `.sortedKeys` writes an object's keys, asked of
/// Foundation itself once for each list of keys and remembered.
///
/// Foundation sorts keys with a locale's collation (case-insensitive, numeric, `_` before `-`
/// before digits before letters, …), which no simple rule reproduces for every key. Items of one
/// fixture share a few lists of keys, so asking Foundation once per list costs nothing per item, and
/// the order is Foundation's by construction.
struct CanonicalKeyOrder {
    /// Separates the keys of a list: a byte that UTF-8 never holds.
    static let separator: UInt8 = 0xFF
    /// The most lists remembered, and the longest (in bytes): objects whose keys are data (a map
    /// from ids to values) would otherwise grow the table without end, up to gigabytes for a hostile
    /// fixture of long lists. Other lists are asked of Foundation each time.
    static let capacity = 4096
    static let longestRemembered = 1024

    /// Each list of keys (written as ``CanonicalJSON`` writes them, joined by ``separator``) and the
    /// order of its keys; empty when two of them are one key to Foundation.
    private var known: [KeyList: [Int]] = [:]

    /// The positions of `count` keys in Foundation's order, or nil when two of them are one key to
    /// Foundation (a repeated key, or two spellings of one string).
    mutating func order(ofKeys keys: [UInt8], count: Int) -> [Int]? {
        if let order = known[KeyList(bytes: keys)] { return order.isEmpty ? nil : order }
        let order = Self.foundationOrder(ofKeys: keys, count: count) ?? []
        if known.count < Self.capacity, keys.count <= Self.longestRemembered { known[KeyList(bytes: keys)] = order }
        return order.isEmpty ? nil : order
    }

    /// Writes an object with these keys and their positions as values through Foundation, sorted,
    /// and reads the positions back in the order written.
    private static func foundationOrder(ofKeys keys: [UInt8], count: Int) -> [Int]? {
        var text = Array("{".utf8)
        for (position, key) in keys.split(separator: separator, omittingEmptySubsequences: false).enumerated() {
            if position > 0 { text.append(UInt8(ascii: ",")) }
            text.append(UInt8(ascii: "\""))
            text.append(contentsOf: key)
            text.append(contentsOf: "\":\(position)".utf8)
        }
        text.append(UInt8(ascii: "}"))
        guard let object = try? JSONSerialization.jsonObject(with: Data(text)) as? [String: Any], object.count == count,
            let sorted = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        else { return nil }
        let order = positions(in: Array(sorted))
        guard order.count == count, Set(order).count == count else { return nil }
        return order
    }

    /// The numbers after each `:` outside strings: the values of a flat object of integers.
    private static func positions(in text: [UInt8]) -> [Int] {
        var positions: [Int] = []
        var index = 0
        var inString = false
        while index < text.count {
            let byte = text[index]
            if inString {
                if byte == UInt8(ascii: "\\") { index += 1 } else if byte == UInt8(ascii: "\"") { inString = false }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: ":") {
                var value = 0
                while index + 1 < text.count, text[index + 1] >= UInt8(ascii: "0"),
                    text[index + 1] <= UInt8(ascii: "9"),
                    value < Int.max / 10 - 9
                {
                    index += 1
                    value = value * 10 + Int(text[index] - UInt8(ascii: "0"))
                }
                positions.append(value)
            }
            index += 1
        }
        return positions
    }
}

/// A list of keys as a dictionary key, hashed as one run of bytes: an array of bytes hashes each
/// byte on its own, which was a noticeable part of a seed of canonical items.
private struct KeyList: Hashable {
    let bytes: [UInt8]

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
