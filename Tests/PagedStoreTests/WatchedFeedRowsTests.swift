import TestSupport
import Testing

@testable import PagedStore

/// Which observed lists a commit seen by the file's watcher nudges: those of the feeds whose row
/// changed since the last look, and any whose row was not seen or cannot be read.
@Suite(.limit(minutes: 3)) struct WatchedFeedRowsTests {
    static let home = ChangeChainTests.record(count: 4, rows: 3)
    static let homeWritten = ChangeChainTests.record(count: 5, rows: 4)

    @Test func aFeedNotSeenBeforeIsNudgedThenOnlyWhenItsRowChanges() {
        var rows = WatchedFeedRows()
        let nudged = [Self.home, Self.home, Self.homeWritten, Self.homeWritten].map { rows.changed("home", now: $0) }
        #expect(nudged == [true, false, true, false])
    }

    @Test func aRowThatCannotBeReadIsNudgedAndSeenAfreshNextTime() {
        var rows = WatchedFeedRows()
        let nudged = [Self.home, nil, Self.home, Self.home].map { rows.changed("home", now: $0) }
        #expect(nudged == [true, true, true, false])
    }

    @Test func aFeedDeletedOrMadeAgainIsNudged() {
        var rows = WatchedFeedRows()
        let nudged = [Self.home, .some(nil), .some(nil), Self.home].map { rows.changed("home", now: $0) }
        #expect(nudged == [true, true, false, true])
    }

    @Test func aFeedNoLongerObservedIsForgotten() {
        var rows = WatchedFeedRows()
        var nudged = [rows.changed("home", now: Self.home), rows.changed("other", now: Self.home)]
        rows.keep(only: ["other"])
        nudged += [rows.changed("home", now: Self.home), rows.changed("other", now: Self.home)]
        #expect(nudged == [true, true, true, false])
    }
}
