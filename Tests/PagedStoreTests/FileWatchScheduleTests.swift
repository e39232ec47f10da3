import TestSupport
import Testing

@testable import PagedStore

/// When the file watcher looks next: at once after a signal, again soon when the signalled commit is
/// not visible yet, and rarely while nothing happens.
@Suite(.limit(minutes: 3)) struct FileWatchScheduleTests {
    @Test func withASignalItWaitsForTheSignalAndLooksRarelyOtherwise() {
        var schedule = FileWatchSchedule(signalled: true)
        #expect(schedule.wait == FileWatchSchedule.backstop)
        schedule.looked(woken: true, changed: true)
        #expect(schedule.wait == FileWatchSchedule.backstop)
    }

    @Test func aSignalAheadOfItsCommitIsLookedAtAgainSoonUntilTheCommitShows() {
        var schedule = FileWatchSchedule(signalled: true)
        schedule.looked(woken: true, changed: false)
        var waits = [schedule.wait]
        while schedule.wait < FileWatchSchedule.backstop {
            schedule.looked(woken: false, changed: false)
            waits.append(schedule.wait)
        }
        #expect(waits == [1, 2, 4, 8, 16, 32, FileWatchSchedule.backstop])
        schedule.looked(woken: true, changed: false)
        schedule.looked(woken: false, changed: true)
        #expect(schedule.wait == FileWatchSchedule.backstop, "the commit showed: wait for the next signal")
    }

    @Test func withoutASignalItPollsOftenAfterAChangeAndBacksOff() {
        var schedule = FileWatchSchedule(signalled: false)
        #expect(schedule.wait == 20)
        for _ in 0..<5 { schedule.looked(woken: false, changed: false) }
        #expect(schedule.wait == 250)
        schedule.looked(woken: false, changed: true)
        #expect(schedule.wait == 20)
    }
}
