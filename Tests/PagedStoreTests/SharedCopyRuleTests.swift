import Foundation
import Testing

@testable import PagedStore

/// Where a copy of a shared item goes among the other feeds holding it.
@Suite struct SharedCopyRuleTests {
    func holder(_ feed: Int64, copiedAt: Int64, pending: PendingEditRecord.Kind? = nil) -> SharedCopyHolder {
        SharedCopyHolder(feedID: feed, position: 10 * feed, copiedAt: copiedAt, pendingEdit: pending)
    }

    @Test func aCopyReplacesOlderAndSameTimeCopiesAndNeverANewerOne() {
        let older = holder(1, copiedAt: 500)
        let same = holder(2, copiedAt: 1_000)
        let newer = holder(3, copiedAt: 1_001)
        #expect(
            SharedCopyRule.steps(forCopyAt: 1_000, holders: [older, same, newer])
                == [.replaceRow(older), .replaceRow(same)])
    }

    @Test func aPendingUpdateKeepsItsRowAndTakesTheCopyAsItsBaseWhateverItsStamp() {
        let edited = holder(1, copiedAt: 9_999, pending: .update)
        #expect(SharedCopyRule.steps(forCopyAt: 1_000, holders: [edited]) == [.replaceEditBase(edited)])
    }

    @Test func aPendingInsertIsTheAppsOwnRowUntilItSettles() {
        #expect(SharedCopyRule.steps(forCopyAt: 1_000, holders: [holder(1, copiedAt: 0, pending: .insert)]).isEmpty)
    }

    @Test func theLastCopyOfEachIDIsSpreadInTheOrderIDsWereFirstWritten() {
        let copies = [("a", "1"), ("b", "1"), ("a", "2")].map {
            EncodedItem(itemID: $0.0, payload: Data($0.1.utf8))
        }
        let latest = SharedCopyRule.latestCopies(copies)
        #expect(latest.map(\.itemID) == ["a", "b"])
        #expect(latest.first?.payload == Data("2".utf8))
    }
}
