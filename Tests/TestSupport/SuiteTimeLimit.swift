import Foundation
public import Testing

extension Trait where Self == RunningTestLimit {
    /// Every suite's limit on each of its tests: a hang fails within minutes, not at the end of CI.
    ///
    /// `minutes` is what the test's own work may take in the plain run, with room for a loaded
    /// machine: one for most suites, three for suites of many or slower steps, fifteen for the
    /// harnesses whose sizes CI raises (crashes, corruption, fuzzing, random sequences, seeds of
    /// hundreds of thousands of rows). Under ThreadSanitizer the same work is several times slower,
    /// so the limit there is five times longer.
    public static func limit(minutes: Int = 1) -> Self {
        RunningTestLimit(minutes: TestEnvironment.underSanitizer ? 5 * minutes : minutes)
    }
}

/// A time limit that counts a test's own running, with few tests running at once.
///
/// Swift Testing starts every test of the run together: on two cores, eight hundred tests share
/// the two threads of the pool, and a test of many short steps (thirty queued edits sent one after
/// another) waits behind all the others at each step. Its wall time then says how many tests run,
/// not whether it hangs, and a built-in time limit fails it. So a test first waits for one of a
/// few running places (``RunningTests``), and its limit starts when it has one.
public struct RunningTestLimit: SuiteTrait, TestTrait, TestScoping {
    /// The most a test may run, once it runs.
    let minutes: Int

    /// Whether the current task is a test that holds a running place.
    @TaskLocal private static var holdsPlace = false

    /// Each test of a suite gets its own place and its own limit.
    public var isRecursive: Bool { true }

    /// Runs one test case in a running place, failing it when it outlives its limit.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A test with its own limit in a suite with one meets this trait twice: the first takes the
        // place, with the test's own limit (the last one its traits list), and the second passes.
        guard testCase != nil, !Self.holdsPlace else { return try await function() }
        let own = test.traits.lazy.compactMap { $0 as? Self }.last ?? self
        await RunningTests.shared.enter()
        do {
            try await Self.$holdsPlace.withValue(true) {
                try await run(function, within: .seconds(60 * own.minutes))
            }
        } catch {
            await RunningTests.shared.leave()
            throw error
        }
        await RunningTests.shared.leave()
    }

    /// Runs `function`, recording an issue and cancelling it once it has run for `limit`.
    private func run(_ function: @Sendable () async throws -> Void, within limit: Duration) async throws {
        try await withoutActuallyEscaping(function) { body in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await body() }
                group.addTask {
                    try await Task.sleep(for: limit)
                    Issue.record("Time limit was exceeded: \(limit) of the test's own running")
                }
                try await group.next()
                group.cancelAll()
            }
        }
    }
}

/// The places where tests run, few at once, handed out first come first served.
///
/// Four per core: enough that tests waiting on child processes, loopback servers or held fetches
/// leave work for both cores, few enough that each step of a running test comes round soon.
actor RunningTests {
    static let shared = RunningTests(places: 4 * max(1, ProcessInfo.processInfo.activeProcessorCount))
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    private init(places: Int) { free = places }

    /// Returns when the caller has a place.
    func enter() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Gives the caller's place to the test that has waited longest.
    func leave() {
        if waiting.isEmpty {
            free += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
