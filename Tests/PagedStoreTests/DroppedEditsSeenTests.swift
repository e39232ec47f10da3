import Foundation
import Testing

@testable import PagedStore

/// The rule of which drops in the outbox's history a following feed reports (`DroppedEditsSeen`).
@Suite struct DroppedEditsSeenTests {
    func drop(_ item: String, key: String? = "k", kind: String? = "like") -> MalformedPendingEdit {
        MalformedPendingEdit(itemID: item, problem: "rejected", outboxKind: kind, idempotencyKey: key)
    }

    @Test func itReportsItsFeedsDropsAfterTheMarkAndMovesPastEveryFeeds() {
        var seen = DroppedEditsSeen(mark: 3)
        let found = [
            (seq: Int64(3), feedKey: "home", edit: drop("old")), (4, "home", drop("a")), (5, "other", drop("b")),
        ]
        #expect(seen.toReport(found, feedKey: "home").map(\.itemID) == ["a"])
        #expect(seen.mark == 5)
        #expect(seen.toReport([], feedKey: "home").isEmpty)
    }

    @Test func aDropTheFeedReportedItselfIsNotReportedAgainOnce() {
        var seen = DroppedEditsSeen(mark: 0)
        seen.reported([drop("a"), drop("b", key: nil, kind: nil)])
        let found = [(seq: Int64(1), feedKey: "home", edit: drop("a")), (2, "home", drop("a"))]
        #expect(seen.toReport(found, feedKey: "home").map(\.itemID) == ["a"], "the second is another writer's")
    }

    @Test func aFileWithoutTheHistoryReportsNothing() {
        var seen = DroppedEditsSeen(mark: nil)
        seen.reported([drop("a")])
        #expect(seen.toReport([(seq: 1, feedKey: "home", edit: drop("a"))], feedKey: "home").isEmpty)
        #expect(seen.mark == nil)
    }
}
