import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// The rules of an item's stacked edits, alone: which edit may follow which, what a stack amounts
/// to, and what a rejected first edit leaves of the others.
@Suite(.limit(minutes: 3)) struct PendingEditStackTests {
    func edit(
        _ kind: PendingEditRecord.Kind, _ item: String = "a", step: Int = 0, base: String? = nil,
        edited: String? = nil, queued: Bool = true
    ) -> PendingEditRecord {
        PendingEditRecord(
            itemID: item, kind: kind, base: base.map { Data($0.utf8) }, baseSection: nil,
            edited: edited.map { Data($0.utf8) }, createdAt: Date(timeIntervalSince1970: 0),
            queued: queued ? QueuedEdit(kind: "k", argument: Data("{}".utf8), idempotencyKey: UUID()) : nil,
            step: step)
    }

    @Test func editsAreGroupedByItemInStepOrderAndItemsInTheOrderOfTheirFirst() {
        let stacks = PendingEditStack.stacks([
            edit(.update, "b", step: 1), edit(.update, "a", step: 0), edit(.update, "b", step: 0),
        ])
        #expect(stacks.map { $0.map(\.itemID) } == [["b", "b"], ["a"]])
        #expect(stacks[0].map(\.step) == [0, 1])
    }

    @Test func onlyQueuedEditsStackAndNothingFollowsARemovalNorPrecedesAnInsert() {
        #expect(PendingEditStack.refusal(adding: .update, queued: false, after: []) == nil)
        #expect(PendingEditStack.refusal(adding: .update, queued: true, after: [edit(.update)]) == nil)
        #expect(PendingEditStack.refusal(adding: .remove, queued: true, after: [edit(.insert)]) == nil)
        #expect(PendingEditStack.refusal(adding: .update, queued: false, after: [edit(.update)]) != nil)
        #expect(PendingEditStack.refusal(adding: .update, queued: true, after: [edit(.update, queued: false)]) != nil)
        #expect(PendingEditStack.refusal(adding: .update, queued: true, after: [edit(.remove)]) != nil)
        #expect(PendingEditStack.refusal(adding: .insert, queued: true, after: [edit(.update)]) != nil)
    }

    @Test func aStackIsARemovalWhenItsLastRemovesAnInsertWhenItsFirstInsertsElseAnUpdate() {
        let updates = PendingEditStack.combined([
            edit(.update, base: "s", edited: "1"), edit(.update, step: 1, base: "1", edited: "2"),
        ])
        #expect(updates?.kind == .update)
        #expect(updates?.base == Data("s".utf8))
        #expect(updates?.edited == Data("2".utf8))
        #expect(PendingEditStack.combined([edit(.insert, edited: "i"), edit(.update, step: 1)])?.kind == .insert)
        var removal = edit(.remove, step: 1, base: "1")
        removal.above = "x"
        let removed = PendingEditStack.combined([edit(.update, base: "s", edited: "1"), removal])
        #expect(removed?.kind == .remove)
        #expect(removed?.above == "x")
        #expect(removed?.edited == nil)
        #expect(PendingEditStack.combined([]) == nil)
    }

    @Test func theEditsAfterARejectedOneStandOnTheValueItRestores() throws {
        let rest = [
            edit(.update, step: 1, base: #"{"a":1,"b":0}"#, edited: #"{"a":1,"b":1}"#),
            edit(.remove, step: 2, base: #"{"a":1,"b":1}"#),
        ]
        let rebased = try PendingEditStack.rebased(rest, onto: Data(#"{"a":0,"b":0}"#.utf8), section: "s")
        #expect(rebased.shown == nil, "the last removes the item")
        #expect(rebased.edits[0].base == Data(#"{"a":0,"b":0}"#.utf8))
        #expect(JSONValue.decode(rebased.edits[0].edited ?? Data()) == JSONValue.decode(Data(#"{"a":0,"b":1}"#.utf8)))
        #expect(rebased.edits[1].base == rebased.edits[0].edited)
        #expect(rebased.edits.map(\.baseSection) == ["s", "s"])
        let updateOnly = try PendingEditStack.rebased(
            Array(rest.prefix(1)), onto: Data(#"{"a":0,"b":0}"#.utf8), section: nil)
        #expect(updateOnly.shown?.payload == updateOnly.edits[0].edited)
    }

    @Test func anEditsOwnChangeWhenKnownIsCarriedInsteadOfWhatItChanged() throws {
        // +1 to a counter: what it changed is "count is 2", its change is "one more".
        let rest = [edit(.update, step: 1, base: #"{"count":1}"#, edited: #"{"count":2}"#)]
        let rebased = PendingEditStack.rebased(rest, onto: Data(#"{"count":5}"#.utf8), section: nil) { _, value in
            guard case .object(let object)? = JSONValue.decode(value.payload),
                case .integer(let count)? = object["count"]
            else {
                return nil
            }
            return JSONValue.object(["count": .integer(count + 1)]).encoded().map { ($0, nil) }
        }
        #expect(rebased.shown?.payload == Data(#"{"count":6}"#.utf8))
    }
}

extension PendingEditStackTests {
    @Test func editsInAnOrderNoEditsLeaveAreNamed() {
        #expect(PendingEditStack.problem(of: [edit(.update)]) == nil)
        #expect(PendingEditStack.problem(of: [edit(.update, queued: false)]) == nil)
        #expect(PendingEditStack.problem(of: [edit(.insert), edit(.update, step: 1), edit(.remove, step: 2)]) == nil)
        #expect(PendingEditStack.problem(of: [edit(.update), edit(.update, step: 1, queued: false)]) != nil)
        #expect(PendingEditStack.problem(of: [edit(.update), edit(.insert, step: 1)]) != nil)
        #expect(PendingEditStack.problem(of: [edit(.remove), edit(.update, step: 1)]) != nil)
    }

    @Test func everyEditOfAStackInAnOrderNoEditsLeaveIsDroppedTheFirstNamingWhy() {
        let sound = UnusablePendingEdits.plan(edits: [edit(.insert), edit(.update, step: 1)], malformed: [])
        #expect(sound.usable.map(\.step) == [0, 1] && sound.dropped.isEmpty && sound.cuts.isEmpty)
        let stack = [edit(.remove), edit(.update, step: 1), edit(.update, step: 2), edit(.update, "b")]
        let plan = UnusablePendingEdits.plan(edits: stack, malformed: [])
        #expect(plan.usable.map(\.itemID) == ["b"])
        #expect(plan.cuts == ["a": 0], "all of it")
        #expect(plan.dropped.map(\.step) == [0, 1, 2])
        #expect(plan.dropped.first?.problem == PendingEditStack.problem(of: [edit(.remove), edit(.update, step: 1)]))
        #expect(plan.dropped.dropFirst().allSatisfy { $0.problem == MalformedPendingEdit.standingOnAnUnusableEdit })
        #expect(plan.rowsLeavingAlone.isEmpty)
    }

    @Test func anUnreadableRowTakesTheItemsEditsAfterItWithItAndLeavesTheOnesBefore() {
        let unreadable = MalformedPendingEdit(itemID: "a", problem: "its kind is none", step: 1, outboxKind: "k")
        let plan = UnusablePendingEdits.plan(
            edits: [edit(.update), edit(.update, step: 2), edit(.update, step: 3), edit(.update, "b")],
            malformed: [unreadable])
        #expect(
            plan.usable.map { "\($0.itemID)\($0.step)" } == ["a0", "b0"],
            "the edit before it stands on the server's value")
        #expect(plan.cuts == ["a": 1])
        #expect(plan.dropped.map(\.step) == [1, 2, 3], "the unreadable row first, then the edits standing on it")
        #expect(plan.dropped.dropFirst().allSatisfy { $0.problem == MalformedPendingEdit.standingOnAnUnusableEdit })
    }

    @Test func aRowWhoseOnlyFaultIsItsOutboxPartGoesAlone() {
        let keyless = MalformedPendingEdit(
            itemID: "a", problem: "a key that is not a UUID", step: 1, outboxKind: "k", payloadsSound: true)
        let plan = UnusablePendingEdits.plan(edits: [edit(.update), edit(.update, step: 2)], malformed: [keyless])
        #expect(plan.usable.map(\.step) == [0, 2])
        #expect(plan.cuts.isEmpty)
        #expect(plan.dropped == [keyless] && plan.rowsLeavingAlone == [keyless])
    }

    @Test func anEditThatMovedTheItemToAnotherSectionKeepsItThereAndOneThatDidNotFollowsTheNewValue() throws {
        var moved = edit(.update, step: 1, base: #"{"s":"A"}"#, edited: #"{"s":"B"}"#)
        (moved.baseSection, moved.editedSection) = ("A", "B")
        var stayed = edit(.update, step: 2, base: #"{"s":"B","n":0}"#, edited: #"{"s":"B","n":1}"#)
        (stayed.baseSection, stayed.editedSection) = ("B", "B")
        let rebased = try PendingEditStack.rebased([moved], onto: Data(#"{"s":"A","r":5}"#.utf8), section: "A")
        #expect(rebased.shown?.section == "B")
        #expect(rebased.edits[0].editedSection == "B")
        let followed = try PendingEditStack.rebased([stayed], onto: Data(#"{"s":"C","n":0}"#.utf8), section: "C")
        #expect(followed.shown?.section == "C", "it did not move the item: the new value's section")
    }
}
