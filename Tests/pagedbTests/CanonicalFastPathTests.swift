import Foundation
import PagedStoreFixtures
import TestSupport
import Testing

/// Seeding writes each item's canonical JSON in one pass (`CanonicalJSON`), or through Foundation
/// when that writer is unsure: whatever path an item takes, the stored bytes must be exactly what
/// Foundation's canonical writer makes.
@Suite(.limit(minutes: 3)) struct CanonicalFastPathTests {
    static let lines = [
        #"{"author":"user_5415","body":"im veniam, quis","created_at":1700000000000,"id":"it_888d842af679498f","title":"Post #0"}"#,
        #"{"a":{"b":[1,-2,true,false,null,{"c":"d"}],"e":{}},"id":7,"z":[]}"#,
        #"{"a1":1,"a10":2,"a9":3,"id":"x"}"#,
        #"{"a":1,"a_b":2,"ab":3,"id":"x"}"#,
        #"{"B":1,"a":2,"id":"x"}"#,
        #"{"id":"x","q":"say \"hi\" \\ there"}"#,
        #"{"id":"x","q":"line\nbreak"}"#,
        #"{"id":"x","q":"a\/b"}"#,
        #"{"id":"x","q":"\u0041"}"#,
        #"{"id":"x","q":"caf\#u{e9}"}"#,
        #"{"id":"x","n":1.0}"#,
        #"{"id":"x","n":-0}"#,
        #"{"id":"x","n":1e3}"#,
        #"{"id":"x","n":12345678901234567}"#,
        #"{"id":"x","b":{"z":1,"a":2}}"#,
        #"{"title":"t","id":"x"}"#,
        #"{ "id":"x"}"#,
        #"{"id":"x","id2":"y"}"#,
        #"{"id":-12,"v":0}"#,
    ]

    @Test(arguments: lines)
    func storedBytesAreTheCanonicalWritersWhicheverPathReadsThem(line: String) throws {
        let read = try FixtureReader().read(Data((line + "\n").utf8), file: "t.ndjson")
        let stored = try #require(read.pages.first?.items.first).json
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
        let canonical = try JSONSerialization.data(
            withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        #expect(String(decoding: stored, as: UTF8.self) == String(decoding: canonical, as: UTF8.self))
    }

    @Test func idsReadTheSameOnBothPaths() throws {
        let text = #"{"id":"it_1","v":1}"# + "\n" + #"{"id":42,"v":1}"# + "\n" + #"{"v":1,  "id":"it_3"}"# + "\n"
        let read = try FixtureReader().read(Data(text.utf8), file: "t.ndjson")
        #expect(read.pages.first?.items.map(\.id) == ["it_1", "42", "it_3"])
    }
}
