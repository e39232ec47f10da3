import Foundation
import PagedStoreFixtures
import TestSupport
import Testing

@testable import PagedStore

/// Reading a row's searchable fields from its bytes finds what parsing the whole document with
/// `JSONSerialization` finds, on any document, and answers by itself for the JSON apps store.
@Suite(.limit(minutes: 1)) struct JSONFieldReaderTests {
    static let fields = ["content", "account.display_name", "media.description", "tags", "é"]

    @Test func whatTheReaderFindsIsWhatParsingFinds() {
        var random = SplitMix64(seed: 0x15_0A_0000)
        var answered = 0
        for round in 0..<3_000 {
            var json = Array(Self.document(using: &random).utf8)
            if round % 3 == 0 { Self.damage(&json, using: &random) }
            let payload = Data(json)
            let read = SearchText(payload: payload, fields: Self.fields)
            let parsed = SearchText(parsing: payload, fields: Self.fields)
            #expect(read == parsed, "\(String(decoding: json, as: UTF8.self).debugDescription)")
            for field in Self.fields {
                let path = field.split(separator: ".", omittingEmptySubsequences: false)[...]
                guard let strings = JSONFieldReader.strings(at: [path], in: payload) else { continue }
                answered += 1
                let object = try? JSONSerialization.jsonObject(with: payload, options: [.fragmentsAllowed])
                #expect(object.map { SearchText.strings(at: field, in: $0) } == strings)
            }
        }
        // Most documents are strict JSON the reader answers for by itself.
        #expect(answered > 3_000 * Self.fields.count / 2)
    }

    @Test func theLastOfTwoEqualKeysCountsAsInJSONSerialization() {
        let payload = Data(#"{"content": "first", "content": "second", "account": {"display_name": "A"}}"#.utf8)
        #expect(JSONFieldReader.strings(at: [["content"]], in: payload) == ["second"])
        #expect(SearchText(payload: payload, fields: ["content"])?.display == "second")
    }

    @Test func whatTheReaderCannotSayIsLeftToJSONSerialization() {
        let undecided = [
            "\u{FEFF}{\"content\": \"a\"}", #"{"content": "a",}"#, #"{"n": 1e400, "content": "a"}"#,
            #"{"content": "\ud800"}"#, "{\"content\": \"a\u{01}b\"}", #"{"n": 01}"#, #"{"content": "a"} x"#,
            String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
        ]
        for json in undecided {
            #expect(JSONFieldReader.strings(at: [["content"]], in: Data(json.utf8)) == nil, "\(json.debugDescription)")
        }
        #expect(
            JSONFieldReader.strings(at: [["content"]], in: Data([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D])) == nil)
    }

    @Test func escapesAreDecodedInTheFieldsAndKeys() {
        let payload = Data(#"{"con\u0074ent": "a\"b\\c\/d\n\u00e9\ud83d\ude00", "x": ["\t"]}"#.utf8)
        #expect(JSONFieldReader.strings(at: [["content"]], in: payload) == ["a\"b\\c/d\né😀"])
    }

    // MARK: - Documents

    /// A random JSON document whose keys are often the fields' and whose strings hold escapes,
    /// non-ASCII text and markup.
    static func document(using random: inout SplitMix64) -> String {
        value(depth: 0, using: &random)
    }

    static func value(depth: Int, using random: inout SplitMix64) -> String {
        let space = [" ", "", "\n", "\t "].randomElement(using: &random) ?? ""
        switch Int.random(in: 0..<(depth > 3 ? 4 : 7), using: &random) {
        case 0: return space + string(using: &random)
        case 1: return ["true", "false", "null"].randomElement(using: &random) ?? "null"
        case 2: return number(using: &random)
        case 3: return space + string(using: &random) + space
        case 4:
            let count = Int.random(in: 0...3, using: &random)
            let elements = (0..<count).map { _ in value(depth: depth + 1, using: &random) }
            return "[" + space + elements.joined(separator: "," + space) + "]"
        default:
            let keys = ["content", "account", "display_name", "media", "description", "tags", "é", "\\u00e9", "id"]
            let count = Int.random(in: 0...4, using: &random)
            let members = (0..<count).map { _ in
                "\"" + (keys.randomElement(using: &random) ?? "id") + "\"" + space + ":"
                    + value(depth: depth + 1, using: &random)
            }
            return "{" + members.joined(separator: "," + space) + space + "}"
        }
    }

    static func string(using random: inout SplitMix64) -> String {
        let pieces = [
            "café", "<p>Hi</p>", "&amp;", "\\\"", "\\\\", "\\/", "\\n", "\\u00e9", "\\ud83d\\ude00", "😀", "東京",
            "word", " ", "\\t", "\\u0000", "\\b\\f\\r",
        ]
        let count = Int.random(in: 0...4, using: &random)
        return "\"" + (0..<count).map { _ in pieces.randomElement(using: &random) ?? "" }.joined() + "\""
    }

    static func number(using random: inout SplitMix64) -> String {
        [
            "0", "-0", "12", "-3.25", "1e3", "2.5E-2", "123456789012345678901234567890", "1e400", "0.000001",
        ].randomElement(using: &random) ?? "0"
    }

    /// Breaks the document as a writer by hand might: a byte removed, a stray one added, the end cut,
    /// a byte-order mark, a byte that is not UTF-8, a trailing comma.
    static func damage(_ json: inout [UInt8], using random: inout SplitMix64) {
        guard !json.isEmpty else { return }
        let at = Int.random(in: 0..<json.count, using: &random)
        switch Int.random(in: 0..<6, using: &random) {
        case 0: json.remove(at: at)
        case 1: json.insert(Array("{}[],:\"\\ 0e-.tn".utf8).randomElement(using: &random) ?? 0x20, at: at)
        case 2: json.removeSubrange(at...)
        case 3: json.insert(contentsOf: [0xEF, 0xBB, 0xBF], at: 0)
        case 4: json.insert(0xFF, at: at)
        default:
            if let close = json.lastIndex(where: { $0 == UInt8(ascii: "}") || $0 == UInt8(ascii: "]") }) {
                json.insert(UInt8(ascii: ","), at: close)
            }
        }
    }
}
