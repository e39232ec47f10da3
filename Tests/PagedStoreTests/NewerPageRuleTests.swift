import Testing

@testable import PagedStore

/// The rule for a page newer than the cached head, alone: which items go on top.
@Suite struct NewerPageRuleTests {
    @Test func newItemsGoOnTopAndTheHeadListedAfterThemStays() {
        let plan = NewerPageRule.plan(itemIDs: ["n2", "n1", "h1", "h2"], rows: ["h1", "h2", "h3"])
        #expect(plan == .init(onTop: [0, 1], moved: []))
    }

    @Test func aRowListedBeforeANewItemMovesUpWithIt() {
        let plan = NewerPageRule.plan(itemIDs: ["d9", "n2", "d7", "n1", "h1"], rows: ["h1", "d7", "d9"])
        #expect(plan == .init(onTop: [0, 1, 2, 3], moved: [0, 2]), "d9 and d7 were bumped; h1 is the head")
    }

    @Test func aPageOfRowsOnlyPutsNothingOnTop() {
        #expect(NewerPageRule.plan(itemIDs: ["h1", "h2"], rows: ["h1", "h2"]) == .init(onTop: [], moved: []))
        #expect(!NewerPageRule.needsHiddenItems(itemIDs: ["h1", "h2"], rows: ["h1", "h2"]))
    }

    @Test func hiddenItemsListedBeforeNewOnesGoOnTopAndAfterTheHeadDoNot() {
        let ids = ["x1", "h1", "n1", "h2", "x2"]
        let rows: Set<String> = ["h1", "h2"]
        #expect(NewerPageRule.needsHiddenItems(itemIDs: ids, rows: rows))
        let plan = NewerPageRule.plan(itemIDs: ids, rows: rows, hidden: ["x1", "x2"])
        #expect(
            plan == .init(onTop: [0, 1, 2], moved: [1], hiddenOnTop: [0], hiddenBumped: [0]),
            "x2, hidden under the head's rows, waits for its page")
        let leading = NewerPageRule.plan(itemIDs: ["x1", "n1", "h1", "x2"], rows: ["h1"], hidden: ["x1", "x2"])
        #expect(
            leading == .init(onTop: [0, 1], moved: [], hiddenOnTop: [0], hiddenBumped: [0]),
            "as before: the items before the first row")
    }

    @Test func inAListOrderedByActivityEveryItemGoesOnTop() {
        let ids = ["n2", "n1", "h9", "x1"]
        let rows: Set<String> = ["h1", "h9"]
        #expect(NewerPageRule.needsHiddenItems(itemIDs: ids, rows: rows))
        let plan = NewerPageRule.plan(itemIDs: ids, rows: rows, hidden: ["x1"], order: .byActivity)
        #expect(
            plan == .init(onTop: [0, 1, 2, 3], moved: [2], hiddenOnTop: [3], hiddenBumped: [3]),
            "h9 was bumped before n1 and n2 came; x1, listed under them, was bumped too")
        #expect(
            NewerPageRule.plan(itemIDs: ids, rows: rows, hidden: ["x1"]) == .init(onTop: [0, 1], moved: []),
            "ordered by creation, h9 is the head again")
    }

    @Test func hiddenItemsOnTopLeftTheirPlacesOnlyAmongNewItems() {
        let relisted = NewerPageRule.plan(itemIDs: ["x2", "x1", "h1"], rows: ["h1"], hidden: ["x1", "x2"])
        #expect(
            relisted == .init(onTop: [0, 1], moved: [], hiddenOnTop: [0, 1]),
            "a lagging cursor lists the hidden head again, and nothing new: nothing moved")
        let bumped = NewerPageRule.plan(
            itemIDs: ["x2", "n1", "h1", "x1"], rows: ["h1"], hidden: ["x1", "x2"], order: .byActivity)
        #expect(bumped.hiddenOnTop == [0, 3])
        #expect(bumped.hiddenBumped == [0, 3], "listed with n1, which the feed lacked, above or under it: moved up")
    }

    @Test func anIdListedTwiceGoesOnTopOnce() {
        let plan = NewerPageRule.plan(itemIDs: ["n1", "n2", "n1"], rows: [])
        #expect(plan == .init(onTop: [0, 1], moved: []))
    }
}
