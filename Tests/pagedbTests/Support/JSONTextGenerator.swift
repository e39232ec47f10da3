import PagedStoreFixtures

/// Random JSON items for comparing the canonical writer with Foundation: keys that collate in every
/// way Foundation's sort can (case, digits, punctuation, accents, other scripts, escapes that spell
/// the same key), strings with every kind of escape, numbers at the edges of Int64, UInt64, Double
/// and Decimal, any whitespace, sometimes a repeated key or a trailing comma.
struct JSONTextGenerator {
    var random: SplitMix64

    static let keys = [
        "id", "a", "A", "b", "B", "ab", "aB", "Ab", "a_b", "a-b", "a.b", "a b", "a1", "a2", "a10", "a01", "A1", "_",
        "-", "", "créé", "cree", "Créé", "\\u00e9", "e\\u0301", "é", "ü", "日本", "😀", "\\ud83d\\ude00", "$ref",
        "@type", "\\\"q\\\"", "\\n", "\\u0041", "ﬁ", "Ａ", "z", "Z", "zz", "created_at", "createdAt", "user_id",
        "userId", "in_reply_to_id", "x9", "x09", "\\/", "/", "\\uFEFFa", "a",
    ]
    static let numbers = [
        "0", "-0", "1", "-1", "1.0", "-0.0", "1e5", "1E5", "1e+5", "1e-5", "1.5e-7", "0.1", "0.30000000000000004",
        "123456789012345678", "9223372036854775807", "9223372036854775808", "18446744073709551615",
        "18446744073709551616", "-9223372036854775808", "-922337203685477580", "12345678901234567.5",
        "1234567890123456.5", "1e400", "100000000000000000000.0", "2.5e-5", "1e16", "1e15", "123.456e2", "5e-324",
        "1.7976931348623157e308", "0.000001", "-12.5E+3",
    ]
    static let pieces = [
        "word", " ", "Post #1", "\\\"", "\\\\", "\\/", "/", "\\b", "\\f", "\\n", "\\r", "\\t", "\\u0000", "\\u001f",
        "\\u001F", "\\u007f", "\\u0080", "\\u00e9", "\\u00C9", "\\u2028", "\\uFEFF", "\\ud83d\\ude00", "é", "😀",
        "\u{2028}", "\u{7F}", "日本語", "\\u0041",
    ]
    static let spaces = ["", "", "", " ", "  ", "\n", "\t", "\r\n"]

    init(random: SplitMix64) {
        self.random = random
    }

    mutating func pick<T>(_ choices: [T]) -> T {
        choices[Int(random.next() % UInt64(choices.count))]
    }

    mutating func chance(_ percent: UInt64) -> Bool {
        random.next() % 100 < percent
    }

    /// An item: an object with an id (usually), as a fixture line holds it.
    mutating func item() -> [UInt8] {
        var text = pick(Self.spaces) + "{" + pick(Self.spaces)
        var members: [String] = []
        if !chance(5) {
            members.append(
                "\"id\"" + pick(Self.spaces) + ":" + pick(Self.spaces)
                    + (chance(50) ? string() : pick(["7", "-0", "42", "1.0"])))
        }
        for _ in 0..<Int(random.next() % 6) { members.append(member(depth: 1)) }
        if chance(50) { members.shuffle(using: &random) }
        text += members.joined(separator: pick(Self.spaces) + "," + pick(Self.spaces))
        if chance(3), !members.isEmpty { text += "," }
        text += pick(Self.spaces) + "}" + pick(Self.spaces)
        return Array(text.utf8)
    }

    mutating func member(depth: Int) -> String {
        "\"" + pick(Self.keys) + "\"" + pick(Self.spaces) + ":" + pick(Self.spaces) + value(depth: depth)
    }

    mutating func value(depth: Int) -> String {
        switch random.next() % (depth > 3 ? 5 : 7) {
        case 0: return string()
        case 1: return pick(Self.numbers)
        case 2: return pick(["true", "false", "null"])
        case 3: return String(Int64(bitPattern: random.next()) >> (random.next() % 64))
        case 4: return String(Double(Int64(bitPattern: random.next()) % 1_000_000) / 64)
        case 5:
            let members = (0..<Int(random.next() % 5)).map { _ in member(depth: depth + 1) }
            return "{" + members.joined(separator: "," + pick(Self.spaces)) + "}"
        default:
            let values = (0..<Int(random.next() % 5)).map { _ in value(depth: depth + 1) }
            return "[" + pick(Self.spaces) + values.joined(separator: "," + pick(Self.spaces)) + "]"
        }
    }

    mutating func string() -> String {
        "\"" + (0..<Int(random.next() % 5)).map { _ in pick(Self.pieces) }.joined() + "\""
    }
}
