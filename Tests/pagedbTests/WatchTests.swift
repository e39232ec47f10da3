import Foundation
import TestSupport
import Testing

/// `pagedb watch` follows a feed live: one line per change another process writes, until Ctrl-C,
/// and it only reads.
@Suite(.limit(minutes: 3)) struct WatchTests {
    let scratch: TemporaryDirectory
    let db: String
    init() throws {
        scratch = try TemporaryDirectory(prefix: "pagedbTests")
        db = scratch.path("shared.sqlite")
    }

    /// Applies a first page of `ids` to `home` in a process of its own.
    func apply(_ ids: [String], named name: String) async throws {
        let items = ids.map { #"{"id":"\#($0)"}"# }.joined(separator: ",")
        let page = try scratch.file(name, #"{"items":[\#(items)],"next_cursor":"c","previous_cursor":null}"#)
        let result = try await PagedDBBinary.run(["apply", "home", "--db", db, "--page", page, "--as", "refresh"])
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// The next line of `watch`, parsed as its JSON document.
    func nextDocument(_ lines: inout AsyncStream<String>.Iterator) async throws -> [String: Any] {
        let line = try #require(await lines.next(), "watch ended before it printed a line")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
    }

    @Test func watchPrintsEachChangeAnotherProcessWritesUntilInterrupted() async throws {
        try await apply(["p1", "p2", "p3"], named: "first.json")
        let watch = try RunningPagedDB(["watch", "home", "--db", db, "--json"])
        var lines = watch.lines.makeAsyncIterator()
        let opened = try await nextDocument(&lines)
        #expect(opened["sequence"] as? Int == 0 && opened["rows"] as? Int == 3)
        try await apply(["n1", "n2", "p1", "p2", "p3"], named: "newer.json")
        var change = try await nextDocument(&lines)
        while change["rows"] as? Int != 5 { change = try await nextDocument(&lines) }
        #expect((change["state"] as? [String: Any])?["content"] as? String == "content")
        #expect(change["full_reload"] is Bool && change["inserted"] is [[Int]])
        let ended = await watch.interrupt()
        #expect(ended.status == 0 && !ended.bySignal, "Ctrl-C ends watch cleanly")
        #expect(await lines.next() == nil)
        // What watch showed is what the file holds, as another process reads it.
        let feeds = try await PagedDBBinary.run(["feeds", "--db", db, "--json"])
        #expect(feeds.stdout.contains("\"rows\" : 5"), "\(feeds.stdout)")
    }

    @Test func watchPrintsOneLinePerChangeInText() async throws {
        try await apply(["p1"], named: "first.json")
        let watch = try RunningPagedDB(["watch", "home", "--db", db])
        var lines = watch.lines.makeAsyncIterator()
        #expect(await lines.next()?.hasPrefix("home: opened; 1 rows") == true)
        try await apply(["n1", "p1"], named: "newer.json")
        var line = await lines.next()
        while let shown = line, !shown.contains("; 2 rows") { line = await lines.next() }
        await #expect(watch.interrupt().status == 0)
    }

    @Test func watchOnAFeedTheFileLacksSaysSoAndExits4() async throws {
        try await apply(["p1"], named: "first.json")
        let result = try await PagedDBBinary.run(["watch", "nosuchfeed", "--db", db], timeout: 20)
        #expect(result.status == 4, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains(#"No feed "nosuchfeed" in this cache; `pagedb feeds` lists them"#))
        #expect(result.stdout.isEmpty)
    }

    @Test func watchWithWaitFollowsAFeedFromTheMomentAWriterCreatesIt() async throws {
        try await apply(["p1"], named: "first.json")
        let watch = try RunningPagedDB(["watch", "later", "--db", db, "--wait", "--json"])
        var lines = watch.lines.makeAsyncIterator()
        let opened = try await nextDocument(&lines)
        #expect(opened["rows"] as? Int == 0)
        #expect((opened["state"] as? [String: Any])?["content"] as? String == "waiting", "\(opened)")
        let items = #"{"items":[{"id":"a"},{"id":"b"}],"next_cursor":null,"previous_cursor":null}"#
        let page = try scratch.file("later.json", items)
        let applied = try await PagedDBBinary.run(["apply", "later", "--db", db, "--page", page, "--as", "refresh"])
        #expect(applied.status == 0, "\(applied.stderr)")
        var change = try await nextDocument(&lines)
        while change["rows"] as? Int != 2 { change = try await nextDocument(&lines) }
        #expect((change["state"] as? [String: Any])?["content"] as? String == "content")
        await #expect(watch.interrupt().status == 0)
    }

    @Test func aReadOnlyWatcherNeverShowsItsFeedAsInitialLoading() async throws {
        try await apply(["p1"], named: "first.json")
        let watch = try RunningPagedDB(["watch", "later", "--db", db, "--wait"])
        var lines = watch.lines.makeAsyncIterator()
        let opened = try #require(await lines.next())
        #expect(opened.hasPrefix("later: opened; 0 rows") && !opened.contains("initialLoading"), "\(opened)")
        await #expect(watch.interrupt().status == 0)
    }

    @Test func watchPrintsNothingForAChangeThatChangedNoRow() async throws {
        try await apply(["p1"], named: "first.json")
        let watch = try RunningPagedDB(["watch", "home", "--db", db])
        var lines = watch.lines.makeAsyncIterator()
        #expect(await lines.next()?.hasPrefix("home: opened; 1 rows") == true)
        // The same page again: the feed's row is written (its refresh time), none of its rows.
        try await apply(["p1"], named: "same.json")
        try await apply(["n1", "p1"], named: "newer.json")
        let next = try #require(await lines.next())
        #expect(next.hasPrefix("home: inserted: [0, 0]; 2 rows"), "\(next)")
        await #expect(watch.interrupt().status == 0)
    }

    @Test func watchHelpAndTheArticleDescribeWait() async throws {
        let help = try await PagedDBBinary.run(["watch", "--help"])
        #expect(help.stdout.contains("--wait"))
        let article = try String(contentsOf: Self.article, encoding: .utf8)
        #expect(article.contains("`--wait`"))
    }

    /// The article documenting the commands, in the source tree.
    static let article = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/PagedStore/PagedStore.docc/UsingPagedb.md")

    @Test func watchingAMissingFileIsAClearErrorAndMakesNoFile() async throws {
        let result = try await PagedDBBinary.run(["watch", "home", "--db", db], timeout: 20)
        #expect(result.status == 66)
        #expect(result.stderr.hasPrefix("pagedb: error:") && result.stderr.contains("No database"))
        #expect(!FileManager.default.fileExists(atPath: db))
    }
}
