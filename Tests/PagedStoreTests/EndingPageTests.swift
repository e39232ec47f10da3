import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// The page that ended a feed is stored with no rows (see `PageStore.appendPage`): the operations that
/// come later (a trim, a refresh that keeps a gap, filling it, a refresh that replaces the feed) keep
/// the file valid, and the feed ended.
@Suite(.limit(minutes: 3)) struct EndingPageTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    @Test func aFeedEndedByAPageOfNoRowsStaysValidThroughTrimGapFillAndReplace() async throws {
        let refreshes = Locked(0)
        let source = ScriptedSource<Post> { request in
            switch request {
            case .first:
                // The first refresh, then two with nothing in common (a gap, then a replaced feed).
                switch refreshes.increment() {
                case 1: Page(items: .posts("p", 5), olderCursor: "c1")
                case 2: Page(items: .posts("n", 3), olderCursor: "m1")
                default: Page(items: .posts("z", 3), olderCursor: "y1")
                }
            case .olderThan(cursor: "m1"): Page(items: [Post(id: "n3"), Post(id: "p0")], olderCursor: "c0")
            case .olderThan: Page(items: [], olderCursor: nil)
            case .newerThan: Page(items: [], olderCursor: nil)
            }
        }
        let keepGap = try test.feed(source, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap))
        await keepGap.refresh()
        await keepGap.loadNextPage()
        #expect(try pageRows() == [5, 0])
        try expectValid("ended")

        #expect(try await keepGap.trim(maxRows: 3) == 0, "a trim keeps the top page whole")
        #expect(try pageRows() == [5, 0], "and the page that ended the feed with it: it holds no rows")
        #expect(try test.recordOnDisk()?.endReached == true)
        #expect(await keepGap.snapshot.nextPage == .endReached)
        try expectValid("trimmed")

        await keepGap.refresh()
        let gap = try #require(await keepGap.snapshot.gaps.first)
        try expectValid("gap kept")
        await keepGap.loadGap(gap)
        #expect(await keepGap.snapshot.gaps.isEmpty)
        #expect(await keepGap.snapshot.ids == ["n0", "n1", "n2", "n3"] + (0..<5).map { "p\($0)" })
        let filled = try pageRows()
        #expect(filled.last == 0, "the feed still ends with the page that ended it")
        try expectValid("gap filled")

        let replace = try test.feed(source, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .replace))
        await replace.refresh()
        let replaced = await replace.snapshot.ids
        #expect(replaced == ["z0", "z1", "z2"])
        #expect(await replace.snapshot.nextPage == .idle)
        try expectValid("replaced")
    }

    func pageRows() throws -> [Int] {
        try DatabaseQueue(path: test.path).read { store in
            try store.pages(of: #require(try store.feed(key: "home"))).map(\.rowCount)
        }
    }

    func expectValid(_ context: String) throws {
        let violations = try DatabaseQueue(path: test.path).read { try $0.verify() }
        #expect(violations.isEmpty, "\(context): \(violations)")
    }
}

extension EndingPageTests {
    @Test func aTrimThatCutsRowsCutsThePageThatEndedTheFeedWithThemAndTheFeedGoesOn() async throws {
        let source = ScriptedSource<Post> { request in
            switch request {
            case .first: Page(items: .posts("p", 5), olderCursor: "c1")
            case .olderThan(cursor: "c1"): Page(items: .posts("q", 5), olderCursor: "c2")
            default: Page(items: [], olderCursor: nil)
            }
        }
        let feed = try test.feed(source)
        await feed.refresh()
        await feed.loadNextPage()
        await feed.loadNextPage()
        #expect(try pageRows() == [5, 5, 0])
        #expect(try await feed.trim(maxRows: 5) == 5)
        #expect(try pageRows() == [5])
        #expect(try test.recordOnDisk()?.oldestCursor == "c1")
        #expect(await feed.snapshot.nextPage == .idle)
        try expectValid("trimmed")
        await feed.loadNextPage()
        await feed.loadNextPage()
        #expect(try pageRows() == [5, 5, 0])
        #expect(await feed.snapshot.nextPage == .endReached)
    }
}
