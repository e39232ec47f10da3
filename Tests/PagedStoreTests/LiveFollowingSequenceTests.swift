import Foundation
import TestSupport
import Testing

/// Two open lists on one feed in one process, both writing in a long random sequence (every kind of
/// operation), each following the other's writes live: every batch either receives applies to the
/// rows before it, none is a full reload taken from the file (the change record covers every
/// write), no busy error surfaces, and at the end each shows the file's rows by itself.
///
/// `PAGEDSTORE_LIVE_OPERATIONS` sets the sequence's length (default 300).
@Suite(.limit(minutes: 10)) struct LiveFollowingSequenceTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    static let operations = ProcessInfo.processInfo.environment["PAGEDSTORE_LIVE_OPERATIONS"].flatMap(Int.init) ?? 300

    @Test func twoStoresOnOneFileFollowEachOthersRandomWritesWithExactBatches() async throws {
        let counts = try await SecondWriterSequence(
            seed: 101, test: test, steps: Self.operations, followsLive: true
        ).run()
        report(counts, "two stores on one file")
    }

    @Test func twoFeedsOnOneKeyInOneStoreFollowEachOthersRandomWritesWithExactBatches() async throws {
        let counts = try await SecondWriterSequence(
            seed: 102, test: test, steps: Self.operations, oneStore: true, followsLive: true
        ).run()
        report(counts, "two feeds on one key in one store")
    }

    private func report(_ counts: [ObservedList<Post>.Counts], _ setUp: String) {
        print("live following, \(setUp), \(Self.operations) operations: first list \(counts[0]); second \(counts[1])")
        for list in counts {
            #expect(list.busyFailures == 0, "\(setUp): a busy error surfaced")
            // Every write is recorded: a list that is behind composes them, never reloads from the file.
            #expect(list.reloadsFromFile == 0, "\(setUp): \(list)")
        }
    }
}
