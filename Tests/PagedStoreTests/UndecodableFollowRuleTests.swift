import TestSupport
import Testing

@testable import PagedStore

/// ``UndecodableFollowRule``: a follow that meets rows the codec cannot decode never counts them in a
/// writable list, and an observed list follows without waiting for the app's next read or write.
@Suite(.limit(minutes: 3)) struct UndecodableFollowRuleTests {
    @Test func aReadOnlyStoreStopsItsWindowAboveThemWhoeverAsks() {
        for callerMayWrite in [false, true] {
            for observed in [false, true] {
                #expect(
                    UndecodableFollowRule.plan(readOnly: true, callerMayWrite: callerMayWrite, observed: observed)
                        == .stopWindowAbove)
            }
        }
    }

    @Test func theFeedsOwnReadOrWriteRemovesThemInTheFollowedChange() {
        for observed in [false, true] {
            #expect(
                UndecodableFollowRule.plan(readOnly: false, callerMayWrite: true, observed: observed)
                    == .removeInTheChange)
        }
    }

    @Test func aNudgedObservedListRemovesThemWithAWriteOfItsOwnAndThenFollows() {
        #expect(UndecodableFollowRule.plan(readOnly: false, callerMayWrite: false, observed: true) == .removeThenFollow)
    }

    @Test func aNudgedListNobodyObservesLeavesTheFollowToItsNextReadOrWrite() {
        #expect(UndecodableFollowRule.plan(readOnly: false, callerMayWrite: false, observed: false) == .leaveForLater)
    }
}
