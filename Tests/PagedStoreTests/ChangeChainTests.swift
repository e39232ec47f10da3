import TestSupport
import Testing

@testable import PagedStore

/// The way from the row a list holds to the file's, out of the change record: one exact change
/// when the recorded writes chain, nothing when any link is missing or wrong.
@Suite(.limit(minutes: 3)) struct ChangeChainTests {
    static func record(id: Int64 = 1, count: Int64, rows: Int) -> FeedRecord {
        FeedRecord(
            id: id, key: "home", newestCursor: nil, oldestCursor: nil, endReached: false, rowCount: rows,
            topPosition: nil, bottomPosition: nil, lastRefreshAt: nil, lastError: nil, generation: 1, loaded: true,
            hasSections: false, policy: nil, changeCount: count)
    }

    static let onTop = ChangeChain.Link(
        fromCount: 4, toCount: 5, fromRows: 3, toRows: 5, change: RowChange(inserted: [0, 1]))
    static let atTheBottom = ChangeChain.Link(
        fromCount: 5, toCount: 7, fromRows: 5, toRows: 6, change: RowChange(inserted: [5]))

    @Test func writesThatChainComposeIntoOneChange() {
        let change = ChangeChain.change(
            from: Self.record(count: 4, rows: 3), to: Self.record(count: 7, rows: 6),
            through: [Self.onTop, Self.atTheBottom])
        #expect(change == RowChange(inserted: [0, 1, 5]))
    }

    @Test func oneWriteIsItsOwnChange() {
        let change = ChangeChain.change(
            from: Self.record(count: 4, rows: 3), to: Self.record(count: 5, rows: 5), through: [Self.onTop])
        #expect(change == RowChange(inserted: [0, 1]))
    }

    @Test func aMissingWriteBreaksTheChain() {
        // Forgotten by the record, or written by a writer that does not record.
        #expect(
            ChangeChain.change(
                from: Self.record(count: 3, rows: 3), to: Self.record(count: 7, rows: 6),
                through: [Self.onTop, Self.atTheBottom]) == nil)
        #expect(
            ChangeChain.change(
                from: Self.record(count: 4, rows: 3), to: Self.record(count: 8, rows: 6),
                through: [Self.onTop, Self.atTheBottom]) == nil)
    }

    @Test func rowCountsThatDoNotMatchBreakTheChain() {
        #expect(
            ChangeChain.change(
                from: Self.record(count: 4, rows: 2), to: Self.record(count: 5, rows: 5), through: [Self.onTop]) == nil)
        #expect(
            ChangeChain.change(
                from: Self.record(count: 4, rows: 3), to: Self.record(count: 5, rows: 4), through: [Self.onTop]) == nil)
    }

    @Test func aFeedMadeAgainIsAnotherFeed() {
        #expect(
            ChangeChain.change(
                from: Self.record(id: 1, count: 4, rows: 3), to: Self.record(id: 2, count: 5, rows: 5),
                through: [Self.onTop]) == nil)
    }

    @Test func aLinkThatDoesNotDecodeBreaksTheChain() {
        var damaged = Self.atTheBottom
        damaged.change = nil
        #expect(
            ChangeChain.change(
                from: Self.record(count: 4, rows: 3), to: Self.record(count: 7, rows: 6),
                through: [Self.onTop, damaged]) == nil)
    }

    @Test func aFeedOfATrillionRowsIsFollowedByTheRowsTheWritesNamed() {
        // A record (and a feed row) edited by hand to claim a trillion rows, or a very deep feed:
        // following two writes costs the rows they named, not one entry per row.
        let rows = 1_000_000_000_000
        let reloadDeep = ChangeChain.Link(
            fromCount: 4, toCount: 5, fromRows: rows, toRows: rows,
            change: RowChange(reloaded: [rows - 1], reloadedIDs: ["last"]))
        let insertOnTop = ChangeChain.Link(
            fromCount: 5, toCount: 6, fromRows: rows, toRows: rows + 1, change: RowChange(inserted: [0]))
        let change = ChangeChain.change(
            from: Self.record(count: 4, rows: rows), to: Self.record(count: 6, rows: rows + 1),
            through: [reloadDeep, insertOnTop])
        #expect(change == RowChange(inserted: [0], reloaded: [rows - 1], reloadedIDs: ["last"]))
    }

    @Test func aRecordedFullReloadIsAFullReload() {
        let replaced = ChangeChain.Link(fromCount: 5, toCount: 6, fromRows: 5, toRows: 6, change: .fullReload)
        let change = ChangeChain.change(
            from: Self.record(count: 4, rows: 3), to: Self.record(count: 6, rows: 6), through: [Self.onTop, replaced])
        #expect(change == .fullReload)
    }
}

/// How long the change record keeps writes: the newest, as many as the limit, forgotten in batches.
@Suite(.limit(minutes: 3)) struct ChangeRecordRetentionTests {
    @Test func nothingIsForgottenBeforeTheLimitOrBetweenBatches() {
        #expect(ChangeRecordRetention.forgetThrough(after: 64, limit: 1000) == nil)
        #expect(ChangeRecordRetention.forgetThrough(after: 1001, limit: 1000) == nil)
    }

    @Test func everyBatchForgetsAllButTheNewestLimit() {
        #expect(ChangeRecordRetention.forgetThrough(after: 1024, limit: 1000) == 24)
        #expect(ChangeRecordRetention.forgetThrough(after: 128, limit: 10) == 118)
    }
}

/// What a list's `reloadedFromFile` event says when the chain breaks (``FeedEvent/reason``).
@Suite struct ReloadReasonTests {
    typealias Followed = FeedCommit<Post>.FollowedWrite

    @Test func aBrokenChainNamesTheWritesTheRecordLacks() {
        let reason = Followed.notRecorded(
            from: ChangeChainTests.record(count: 3, rows: 3), to: ChangeChainTests.record(count: 7, rows: 6))
        #expect(reason == "the change record does not hold every write from change 3 (3 rows) to change 7 (6 rows)")
    }

    @Test func aRowChangedWithoutItsCountIsAWriterThatDoesNotRecord() {
        let reason = Followed.notRecorded(
            from: ChangeChainTests.record(count: 3, rows: 3), to: ChangeChainTests.record(count: 3, rows: 4))
        #expect(reason.hasSuffix("a writer that does not record"), "\(reason)")
    }

    @Test func aFeedMadeAgainIsNamedSo() {
        let reason = Followed.notRecorded(
            from: ChangeChainTests.record(count: 3, rows: 3), to: ChangeChainTests.record(id: 2, count: 1, rows: 1))
        #expect(reason == "the feed was deleted and made again")
    }

    @Test func anExactChangeIsNoReload() {
        let held = ChangeChainTests.record(count: 4, rows: 3)
        guard case .recorded = Followed(RowChange(inserted: [0]), from: held, to: held) else {
            Issue.record("an exact change was taken whole")
            return
        }
    }
}
