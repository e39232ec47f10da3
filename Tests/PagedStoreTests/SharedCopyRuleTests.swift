import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// Where a copy of a shared item goes among the feeds holding it.
@Suite(.limit(minutes: 3)) struct SharedCopyRuleTests {
    let copy = Data("copy".utf8)
    let edited = Data("edited".utf8)

    func holder(_ feed: Int64, pending: PendingEditRecord.Kind? = nil) -> SharedCopyHolder {
        SharedCopyHolder(feedID: feed, position: 10 * feed, pendingEdit: pending)
    }

    func plan(
        _ holders: [SharedCopyHolder], pendingEdit: Data? = nil, writerEdits: Bool = false
    )
        -> SharedCopyRule.Plan
    {
        SharedCopyRule.plan(for: copy, holders: holders, pendingEdit: pendingEdit, writerHasPendingEdit: writerEdits)
    }

    @Test func aCopyReplacesTheCopyOfEveryOtherFeed() {
        let holders = [holder(1), holder(2)]
        #expect(plan(holders) == SharedCopyRule.Plan(steps: holders.map { .replaceRow($0, payload: copy) }))
    }

    @Test func onlyAStackStartingWithAnInsertIsItsFeedsOwn() {
        #expect(SharedCopyRule.keepsItsOwnCopy(stackStartingWith: .insert))
        #expect(!SharedCopyRule.keepsItsOwnCopy(stackStartingWith: .update))
        #expect(!SharedCopyRule.keepsItsOwnCopy(stackStartingWith: .remove), "its base is the server's copy")
    }

    @Test func aPendingUpdateKeepsItsRowAndTakesTheCopyAsItsBase() {
        let editing = holder(1, pending: .update)
        #expect(plan([editing], pendingEdit: edited).steps == [.replaceEditBase(editing)])
    }

    @Test func everyOtherFeedAndTheWriterShowAnotherFeedsPendingEditOverTheCopy() {
        let editing = holder(1, pending: .update)
        let plain = holder(2)
        let planned = plan([editing, plain], pendingEdit: edited)
        #expect(planned.steps == [.replaceEditBase(editing), .replaceRow(plain, payload: edited)])
        #expect(planned.writerShows == edited)
        #expect(plan([plain], pendingEdit: edited, writerEdits: true).writerShows == nil, "its own edit: replayed")
    }

    @Test func anEditJustMadeIsShownEverywhereAndBecomesNoFeedsBase() {
        let editing = holder(1, pending: .update)
        let plain = holder(2)
        let planned = SharedCopyRule.plan(
            for: edited, holders: [editing, plain], pendingEdit: edited, writerHasPendingEdit: true)
        #expect(planned == SharedCopyRule.Plan(steps: [.replaceRow(plain, payload: edited)]))
    }

    @Test func anEditGoneAgainOnACopyThatEqualsItIsStillEveryFeedsBase() {
        // The edit's change run on the copy gave the copy itself (a like the server already counts):
        // still a server copy, which the editing feed keeps as its base.
        let editing = holder(1, pending: .update)
        let plain = holder(2)
        let planned = SharedCopyRule.plan(
            for: copy, holders: [editing, plain], pendingEdit: copy, writerHasPendingEdit: false, editGoesAgain: true)
        #expect(planned.steps == [.replaceEditBase(editing), .replaceRow(plain, payload: copy)])
    }

    @Test func aPendingInsertIsTheAppsOwnRowUntilItSettles() {
        #expect(plan([holder(1, pending: .insert)]).steps.isEmpty)
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
