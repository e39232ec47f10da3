import Foundation
import PagedStoreFixtures
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A shared item's one search document, holding the distinct texts of its rows, against what
/// verify reads (rows waiting in a backlog, rows of a shared feed written by hand without their
/// mark) and the row a match shows where the copies' words fold differently.
@Suite(.limit(minutes: 2)) struct SharedSearchAttackTests {
    let base: SearchAttackTests
    var store: FeedStore { base.store }
    var test: FeedTestCase { base.test }

    init() throws { base = try SearchAttackTests() }

    private func differences() throws -> (orphans: Int, missing: Int, stale: Int) {
        try DatabaseQueue(path: test.path).read { try $0.searchIndexDifferences() }
    }

    /// "profile" held its own copy of x ("beaver"); its type becomes shared under "toot", which
    /// "home" holds x as ("otter"): what opening the feed with the new type writes. Profile's rows
    /// now wait in its search backlog, which verify must not count ("Rows waiting in a feed's
    /// backlog are not counted"), yet the shared document's check reads them.
    @Test func verifyCountsARowStillWaitingInItsBacklogAgainstASharedDocument() async throws {
        let home = try store.feed(
            "home", source: base.source(Locked([SharedToot(id: "x", content: "otter")])),
            policy: FeedPolicy(refreshOnOpen: .never))
        await home.refresh()
        let profile = try store.feed(
            "profile", source: base.source(Locked([OwnToot(id: "x", content: "beaver")])),
            policy: FeedPolicy(refreshOnOpen: .never))
        await profile.refresh()
        #expect(try differences() == (0, 0, 0))
        try DatabaseQueue(path: test.path).write { s in
            guard var record = try s.feed(key: "profile") else { return }
            _ = try s.setSharedType("toot", of: &record)
            #expect(record.searchBacklog != nil)
        }
        let found = try differences()
        #expect(found == (0, 0, 0), "verify while profile's backlog waits: \(found)")
        // Once the backlog is indexed, the document holds both copies and verify agrees.
        try DatabaseQueue(path: test.path).write { s in
            guard var record = try s.feed(key: "profile") else { return }
            _ = try s.indexSearchBacklog(of: &record, batch: 100)
        }
        #expect(try differences() == (0, 0, 0))
    }

    /// A row of a shared feed written by hand with sqlite3 (flags left at its default 0), holding
    /// a copy of x that differs from home's. The next open repairs the index; verify must then
    /// agree with it, and `pagedb reindex` must leave nothing for verify to report.
    @Test func verifyAndRepairDisagreeOnAHandWrittenRowOfASharedFeed() async throws {
        _ = try await base.openShared(
            Locked([SharedToot(id: "x", content: "otter")]), profile: Locked([SharedToot(id: "z", content: "heron")]))
        try ForeignWriter.execute(
            """
            INSERT INTO item (feed_id, item_id, position, page_no, payload)
            SELECT feed_id, 'x', position + 1, page_no, '{"id":"x","content":"walrus"}' FROM item
            WHERE feed_id = (SELECT id FROM feed WHERE key = 'profile') AND item_id = 'z';
            """, on: test.path)
        try DatabaseQueue(path: test.path).write { s in _ = try s.repairSearchIndex() }
        let repaired = try differences()
        #expect(repaired == (0, 0, 0), "verify after the repair: \(repaired)")
        try DatabaseQueue(path: test.path).write { s in _ = try s.rebuildSearchIndex() }
        let rebuilt = try differences()
        #expect(rebuilt == (0, 0, 0), "verify after pagedb reindex: \(rebuilt)")
    }

    /// "home" queues an insert of x whose draft reads "Straße"; "profile" then refreshes the
    /// server's x, "strasse". FTS5 (unicode61) reads "straße" and "strasse" as different words, so
    /// home's row alone would never be found by "strasse"; the match must show profile's row, and a
    /// search of home alone must find nothing.
    @Test func aMatchShowsARowTheIndexWouldNotMatch() async throws {
        let profileItems = Locked([SharedToot(id: "y", content: "heron")])
        let (home, profile) = try await base.openShared(
            Locked([SharedToot(id: "z", content: "heron")]), profile: profileItems)
        _ = try await home.enqueue(
            "post", inserting: SharedToot(id: "x", content: "Straße"), at: 0, argument: Revision(revision: 1))
        // Home's row alone: the index does not match "strasse" against "Straße".
        #expect(try store.search("strasse ", as: SharedToot.self).isEmpty)
        #expect(try store.search("straße ", as: SharedToot.self).map(\.feedKey) == ["home"])
        profileItems.value = [SharedToot(id: "x", content: "strasse"), SharedToot(id: "y", content: "heron")]
        await profile.refresh()
        #expect(try test.itemsOnDisk(of: SharedToot.self, key: "home").first?.content == "Straße")
        #expect(try test.itemsOnDisk(of: SharedToot.self, key: "profile").first?.content == "strasse")
        // FTS5 itself tells the copies apart (the highlight's folding reads ß as ss).
        let shown = try store.search("strasse ", as: SharedToot.self).map { "\($0.feedKey): \($0.item.content)" }
        #expect(shown == ["profile: strasse"], "strasse shows \(shown)")
        #expect(try store.search("strasse ", as: SharedToot.self, in: ["home"]).isEmpty)
    }
}
