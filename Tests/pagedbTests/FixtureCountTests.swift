import Foundation
import PagedStoreFixtures
import TestSupport
import Testing

/// `FixtureReader.count(contentsOf:)`, a seed's first pass, keeps no canonical item's bytes: it must
/// still count exactly the items the writing pass streams, and refuse what that pass refuses.
@Suite(.limit(minutes: 3)) struct FixtureCountTests {
    let scratch: TemporaryDirectory
    init() throws { scratch = try TemporaryDirectory(prefix: "pagedbTests") }

    /// Canonical and non-canonical items alike, in every shape of file.
    static let shapes: [(name: String, text: String)] = {
        let items = CanonicalFastPathTests.lines
        let pages = items.map {
            #"{"items": [\#($0), \#($0.replacingOccurrences(of: "\"x\"", with: "\"y\""))], "next_cursor": null}"#
        }
        return [
            ("items.ndjson", items.joined(separator: "\n") + "\n"),
            ("items.json", "[" + items.joined(separator: ",\n") + "]"),
            ("pages.json", "[" + pages.joined(separator: ",") + "]"),
            ("page.json", pages[0]),
        ]
    }()

    @Test(arguments: shapes.map(\.name))
    func countsWhatTheStreamReads(name: String) throws {
        let text = try #require(Self.shapes.first { $0.name == name }).text
        let file = try scratch.file(name, text)
        var streamed = 0
        try FixtureReader().stream(contentsOf: file, pageSize: 3, checkingDuplicates: false) { page, _ in
            streamed += page.items.count
        }
        #expect(streamed > 0)
        #expect(try FixtureReader().count(contentsOf: file) == streamed)
    }

    @Test func refusesABadLineAsTheStreamDoes() throws {
        let file = try scratch.file(
            "bad.ndjson", #"{"id":"a"}"# + "\n" + #"{"id":"b"}"# + "\n" + #"{"title":"c"}"# + "\n")
        #expect {
            _ = try FixtureReader().count(contentsOf: file)
        } throws: { error in
            (error as? FixtureError)?.line == 3 && (error as? FixtureError)?.reason == #"the item has no "id""#
        }
    }
}
