import Foundation
import PagedStoreTesting
import Testing

@testable import PagedStore
@testable import PagedStoreFixtures

/// A thread-safe counter.
final class AttackCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func next() -> Int {
        lock.withLock {
            value += 1; return value
        }
    }
}

/// A thread-safe set of ids.
final class IDSet: @unchecked Sendable {
    private let lock = NSLock()
    private var ids = Set<String>()
    func insert(_ id: String) { _ = lock.withLock { ids.insert(id) } }
    var all: Set<String> { lock.withLock { ids } }
}

/// Hostile tests of the engine-integrity work: sequences the reference model does not generate,
/// two stores on one file, and cache files edited behind the engine's back. Each test names the
/// behaviour it expects and fails on the code as it was attacked.
@Suite struct AttackTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    // MARK: - Server items moving up

    /// Found: a refresh whose page holds a row "bumped" from the second page to the top (a thread
    /// with a new reply) rewrites the head through the bumped row's old place and deletes every row
    /// between the page's end and that place (p9…p14), though the server still lists them; the older
    /// cursor stays below them, so scrolling to the end never fetches them (Architecture rule 3: only rows the
    /// server no longer lists *within the overlap* are deletions). RefreshMerge.plan `.rewrite`.
    @Test func aRowBumpedToTheTopFromTheSecondPageSkipsNoServerItem() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try test.feed(server.source)
        await feed.refresh()
        await feed.loadNextPage()
        #expect(await feed.snapshot.ids.count == 20)
        var items = server.items
        let bumped = items.remove(at: 15)
        server.items = [bumped] + items
        let before = await feed.snapshot
        await feed.refresh()
        let after = await feed.snapshot
        #expect(try BatchUpdate.apply(after.change, to: before.ids, new: after.ids) == after.ids)
        try await scrollToTheEnd(feed)
        let shown = await feed.snapshot.ids
        #expect(shown == server.items.map(\.id), "every server item, once, in order")
    }

    /// Found: the same rewrite across a gap. A row from below a keepGap gap moves to the top; the
    /// rewrite deletes the gap with the head, so the rows the gap stood for are never fetched.
    @Test func aRowBumpedFromBelowAGapKeepsTheGapsRowsFetchable() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap)
        let feed = try test.feed(server.source, policy: policy)
        await feed.refresh()
        server.items = .posts("n", 15) + server.items
        await feed.refresh()
        #expect(await feed.snapshot.gaps.count == 1)
        var items = server.items
        let bumped = items.remove(at: items.firstIndex { $0.id == "p0" }!)
        server.items = [bumped] + items
        await feed.refresh()
        try await scrollToTheEnd(feed)
        let shown = await feed.snapshot.ids
        #expect(shown == server.items.map(\.id), "n9…n14 were skipped with the gap")
    }

    // MARK: - Two stores (processes) on one file

    /// Found: when another store (an app extension, a second process) loads the feed's next page,
    /// this feed's next page is `superseded` (its cursor no longer matches the file) but its record is
    /// never read again, so every later next page asks with the same stale cursor and is superseded
    /// too: the feed never reaches the end. Feed+NextPage.swift commitNextPage `.superseded`.
    @Test func aFeedCatchesUpWhenAnotherStoreLoadedItsNextPage() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let mine = try test.feed(server.source)
        await mine.refresh()
        let other = try test.feed(server.source)  // a second store on the same file
        await other.loadNextPage()
        #expect(try test.idsOnDisk().count == 20)
        for _ in 0..<5 where await mine.snapshot.nextPage != .endReached { await mine.loadNextPage() }
        let snapshot = await mine.snapshot
        #expect(snapshot.nextPage == .endReached, "stuck at \(snapshot.ids.count) rows, next page \(snapshot.nextPage)")
        #expect(snapshot.ids == server.items.map(\.id))
    }

    /// Found: a local edit commits a change computed on the file's rows, and the feed applies it to
    /// the rows it holds in memory. When another store changed the feed meanwhile (here: removed one
    /// row and inserted one, so the count is unchanged), the change is a plain reload that does not
    /// turn the previous snapshot into the new one. Feed+Edits.swift edit / Feed+Commit.swift apply.
    /// (The feed now takes the file's rows first, with a full reload, and then emits the edit.)
    @Test func aLocalEditsChangeAppliesAfterAnotherStoreEditedTheFeed() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let mine = try test.feed(server.source)
        await mine.refresh()
        let other = try test.feed(server.source)
        try await other.remove(id: "p3")
        try await other.insert(Post(id: "x"), at: 0)
        let recorder = await SnapshotRecorder(mine)
        try await mine.update(Post(id: "p5", revision: 1))
        let snapshots = await recorder.snapshots(settlingOn: mine)
        #expect(snapshots.last?.ids == (try test.idsOnDisk()))
        for (before, after) in zip(snapshots, snapshots.dropFirst()) {
            #expect(try BatchUpdate.apply(after.change, to: before.ids, new: after.ids) == after.ids)
        }
    }

    /// Found: after another store committed a refresh (the file's generation moved on), this feed's
    /// next pages are dropped as superseded (`feed.generation <= generation` fails in commitNextPage)
    /// and nothing adopts the file's generation, so the feed can never load a next page again until
    /// it refreshes itself. Feed+NextPage.swift commitNextPage.
    @Test func aFeedStillPaginatesAfterAnotherStoreRefreshedIt() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let mine = try test.feed(server.source)
        await mine.refresh()
        server.items = .posts("n", 3) + server.items
        await (try test.feed(server.source)).refresh()  // another process: n0…n2 on top
        for _ in 0..<3 { await mine.loadNextPage() }
        let snapshot = await mine.snapshot
        #expect(snapshot.ids.count > 10, "stuck at \(snapshot.ids.count) rows, next page \(snapshot.nextPage)")
    }

    /// Found: a refresh started before a relaunch (the old process, or an app extension, still
    /// waiting for its response) commits after the relaunched feed's newer refresh: both bumped the
    /// file's generation to the same value, and commitRefresh only drops a response when the file's
    /// generation is *greater* (Feed+Commit.swift `feed.generation <= generation`). The stale page
    /// overwrites the newer one: the edited p0 reverts, and n0…n2 are deleted from the file.
    @Test func aRefreshFromBeforeARelaunchNeverOverwritesTheRelaunchedFeedsNewerRefresh() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        do { await (try test.feed(server.source)).refresh() }
        let slow = ScriptedSource<Post>()
        let old = try test.feed(slow)
        async let oldRefresh: Void = old.refresh()
        let fetch = await slow.nextFetch()
        let stalePage = server.page(for: .first)  // what the old process's request sees
        server.items = .posts("n", 3) + [Post(id: "p0", revision: 1)] + server.items.dropFirst()
        let relaunched = try test.feed(server.source)
        await relaunched.refresh()
        #expect(try test.idsOnDisk().prefix(4) == ["n0", "n1", "n2", "p0"])
        fetch.respond(stalePage)
        _ = await oldRefresh
        let onDisk = try test.idsOnDisk()
        #expect(onDisk.prefix(4) == ["n0", "n1", "n2", "p0"], "the older response was written over the newer one")
        let fresh = try test.feed(server.source)
        #expect(await fresh.snapshot.rows[onDisk.firstIndex(of: "p0") ?? 0]?.revision == 1)
    }

    /// Two feeds on one store, every operation interleaved on both: each stays its own.
    @Test func twoFeedsOnOneStoreStayApart() async throws {
        let a = ModelServer(.posts("a", 30), pageSize: 7)
        let b = ModelServer(.posts("b", 30), pageSize: 5)
        let slowA = ScriptedSource<Post> { request in
            try await Task.sleep(for: .milliseconds(2))
            return a.page(for: request)
        }
        let store = try test.store()
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap, maxRows: 12)
        let feedA = try test.feed(slowA, policy: policy, key: "a", store: store)
        let feedB = try test.feed(b.source, policy: policy, key: "b", store: store)
        async let r1: Void = feedA.refresh()
        async let r2: Void = feedB.refresh()
        _ = await (r1, r2)
        a.items = .posts("na", 10) + a.items
        async let n1: Void = feedA.loadNextPage()
        async let n2: Void = feedB.loadNextPage()
        async let r3: Void = feedA.refresh()
        async let e1: Void = { try? await feedB.insert(Post(id: "lb"), at: 0) }()
        _ = await (n1, n2, r3, e1)
        try await scrollToTheEnd(feedA)
        try await scrollToTheEnd(feedB)
        #expect(await feedA.snapshot.ids == a.items.map(\.id))
        #expect(await feedB.snapshot.ids == ["lb"] + b.items.map(\.id))
        #expect(try test.idsOnDisk(key: "a") == a.items.map(\.id))
    }

    // MARK: - Activities and limits

    /// Found: a next page fails; then a refresh replaces the feed with a list that has ended (no
    /// older cursor). The snapshot still says next page `failed` (the failure outranks `endReached`
    /// in Feed.snapshot), and retry() cannot repeat it: startNextPage refuses an ended feed, so the
    /// failure shows forever with a retry that does nothing. FeedActivity: nothing clears a
    /// next-page failure when a commit ends the feed.
    @Test func aNextPageFailureThatARefreshMadeMootIsClearedOrRetried() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let mode = Mode()
        let source = ScriptedSource<Post> { request in
            if mode.value == .failOlder, case .olderThan = request { throw URLError(.timedOut) }
            return server.page(for: request)
        }
        let feed = try test.feed(source)
        await feed.refresh()
        mode.value = .failOlder
        await feed.loadNextPage()
        guard case .failed = await feed.snapshot.nextPage else {
            Issue.record("expected the next page to fail")
            return
        }
        mode.value = .ok
        server.items = .posts("m", 4)  // a short new list: no overlap, and it has ended
        await feed.refresh()
        await feed.retry()
        let snapshot = await feed.snapshot
        #expect(snapshot.ids == ["m0", "m1", "m2", "m3"])
        #expect(snapshot.nextPage == .endReached, "still \(snapshot.nextPage) after retry()")
    }

    /// Found: trim keeps "at least the top page", but counts pages, not rows: when the top page's
    /// rows were all removed locally, trim(maxRows: 0) keeps that 0-row page and deletes every other
    /// row, so a feed with 20 cached rows and more on the server shows `empty` (and a list with no
    /// rows never calls rowDidAppear, so nothing loads again). PageStore+Edits.swift
    /// trim(_:keepingPages:) `keep = max(keep, 1)`.
    @Test func trimmingNeverLeavesAFeedEmptyWhileItHadRows() async throws {
        let server = ModelServer(.posts("p", 40), pageSize: 10)
        let feed = try test.feed(server.source)
        await feed.refresh()
        await feed.loadNextPage()
        await feed.loadNextPage()
        for index in 0..<10 { try await feed.remove(id: "p\(index)") }
        try await feed.trim(maxRows: 0)
        let snapshot = await feed.snapshot
        #expect(snapshot.rows.count > 0, "content \(snapshot.content), next page \(snapshot.nextPage)")
    }

    /// A window smaller than the feed: after prepends, gap fills, local edits and trims, every loaded
    /// row is the row the file has at that index.
    @Test func aSmallWindowAlwaysHoldsTheRowsTheFileHasThere() async throws {
        let server = ModelServer(.posts("p", 60), pageSize: 10)
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap, windowSize: 8, firstScreenRows: 4)
        let feed = try test.feed(server.source, policy: policy)
        func check(_ step: String) async throws {
            await feed.waitUntilIdle()
            let snapshot = await feed.snapshot
            let disk = try test.idsOnDisk()
            #expect(snapshot.rows.count == disk.count, "\(step)")
            for row in snapshot.rows.loadedRange where row < disk.count {
                #expect(snapshot.rows.id(at: row) == disk[row], "\(step): row \(row)")
            }
        }
        await feed.refresh()
        await feed.loadNextPage()
        await feed.loadNextPage()
        await feed.rowDidAppear(15)
        try await check("scrolled")
        server.items = .posts("n", 3) + server.items
        await feed.refresh()
        try await check("prepend while scrolled")
        await feed.rowDidAppear(2)
        try await check("back to top")
        server.items = .posts("m", 15) + server.items
        await feed.refresh()
        try await check("keepGap refresh")
        await feed.rowDidAppear(12)
        try await feed.insert(Post(id: "local"), at: 10)
        try await check("local insert under the gap")
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))
        try await check("gap fill")
        try await feed.remove(id: "m3")
        try await feed.update(Post(id: "p2", revision: 3))
        try await check("edits")
        await feed.rowDidAppear(await feed.snapshot.rows.count - 1)
        try await check("bottom")
        try await feed.trim(maxRows: 5)
        try await check("trim")
    }

    /// Two stores on one file hammer the same feed at once (refresh, next pages, gap fills, local
    /// edits, trims); the file stays valid, holds no id twice, and a fresh feed on it scrolls to
    /// every server item.
    @Test(arguments: 0..<8) func twoStoresHammeringOneFeedKeepTheFileValid(seed: Int) async throws {
        let server = ModelServer(.posts("p", 60), pageSize: 7)
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap)
        let slow = ScriptedSource<Post> { request in
            try await Task.sleep(for: .microseconds(Int.random(in: 0...800)))
            return server.page(for: request)
        }
        let feeds = [try test.feed(slow, policy: policy), try test.feed(slow, policy: policy)]
        await feeds[0].refresh()
        let serial = AttackCounter()
        let removed = IDSet()
        await withTaskGroup(of: Void.self) { group in
            for (index, feed) in feeds.enumerated() {
                group.addTask {
                    var random = SplitMix64(seed: UInt64(seed * 2 + index))
                    for step in 0..<25 {
                        let snapshot = await feed.snapshot
                        switch Int.random(in: 0..<8, using: &random) {
                        case 0:
                            let n = serial.next()
                            server.items =
                                (0..<Int.random(in: 1...9, using: &random)).map {
                                    Post(id: "s\(n)-\($0)")
                                } + server.items
                        case 1: await feed.refresh()
                        case 2: await feed.loadNextPage()
                        case 3: if let gap = snapshot.gaps.first { await feed.loadGap(gap) }
                        case 4:
                            try? await feed.insert(
                                Post(id: "l\(index)-\(step)"),
                                at: Int.random(in: 0...snapshot.rows.count, using: &random))
                        case 5:
                            if let id = snapshot.rows.id(at: 0) {
                                removed.insert(id)
                                _ = try? await feed.remove(id: id)
                            }
                        case 6: _ = try? await feed.trim(maxRows: Int.random(in: 0...30, using: &random))
                        default: await feed.retry()
                        }
                    }
                }
            }
        }
        for feed in feeds { await feed.waitUntilIdle() }
        let violations = try DatabaseQueue(path: test.path).read { try $0.verify() }
        #expect(violations.isEmpty, "\(violations)")
        let disk = try test.idsOnDisk()
        #expect(Set(disk).count == disk.count, "an id twice on disk")
        let whole = FeedPolicy(
            refreshOnOpen: .never, gapPolicy: .keepGap, windowSize: 100_000, firstScreenRows: 100_000)
        let fresh = try test.feed(server.source, policy: whole)
        await fresh.refresh()
        try await scrollToTheEnd(fresh)
        let shown = await fresh.snapshot.ids
        let listed = server.items.map(\.id)
        let missing = Set(listed).subtracting(shown).subtracting(removed.all)
        #expect(missing.isEmpty, "never fetched: \(missing.sorted())")
    }

    /// Every operation at once on one feed, with slow, failing and reordered responses: after
    /// each burst every change applies, nothing is loading with nothing in flight, disk == memory,
    /// and at the end scrolling reaches every server item.
    @Test(arguments: 0..<10) func concurrentBurstsOfEveryOperationKeepEveryInvariant(seed: Int) async throws {
        let sectioned = seed % 3 != 0
        let server = ModelServer(
            (0..<50).map { Post(id: "p\($0)", section: sectioned ? "k\($0 / 4 % 3)" : nil) }, pageSize: 6)
        let failing = Flag(true)
        let chaos = ScriptedSource<Post> { request in
            let page = server.page(for: request)
            try await Task.sleep(for: .microseconds(Int.random(in: 0...1500)))
            if failing.value, Int.random(in: 0..<5) == 0 { throw URLError(.timedOut) }
            return page
        }
        let policy = FeedPolicy(
            refreshOnOpen: .never, gapPolicy: .keepGap, windowSize: 100_000, firstScreenRows: 100_000,
            maxRows: seed % 2 == 0 ? 25 : nil)
        let feed = try test.feed(chaos, policy: policy)
        let recorder = await SnapshotRecorder(feed)
        let removed = IDSet()
        let serial = AttackCounter()
        var random = SplitMix64(seed: UInt64(seed))
        await feed.refresh()
        for burst in 0..<8 {
            let ops = (0..<5).map { _ in Int.random(in: 0..<10, using: &random) }
            let pick = Int.random(in: 0..<1000, using: &random)
            await withTaskGroup(of: Void.self) { group in
                for op in ops {
                    group.addTask {
                        let snapshot = await feed.snapshot
                        switch op {
                        case 0:
                            let n = serial.next()
                            server.items =
                                (0..<(1 + pick % 9)).map {
                                    Post(id: "s\(n)-\($0)", section: sectioned ? "k\(($0 + n) % 3)" : nil)
                                } + server.items
                        case 1: await feed.refresh()
                        case 2: await feed.loadNextPage()
                        case 3: if snapshot.rows.count > 0 { await feed.rowDidAppear(snapshot.rows.count - 1) }
                        case 4: if let gap = snapshot.gaps.last { await feed.loadGap(gap) }
                        case 5:
                            let row = snapshot.gaps.first.map { $0.afterRow + 1 } ?? pick % (snapshot.rows.count + 1)
                            try? await feed.insert(
                                Post(id: "l\(serial.next())", section: sectioned ? "k\(pick % 4)" : nil), at: row)
                        case 6:
                            let above = snapshot.gaps.first.flatMap { snapshot.rows.id(at: $0.afterRow) }
                            if let id = above ?? snapshot.rows.id(at: pick % max(snapshot.rows.count, 1)) {
                                removed.insert(id)
                                _ = try? await feed.remove(id: id)
                            }
                        case 7: _ = try? await feed.trim(maxRows: pick % 20)
                        case 8:
                            if let id = snapshot.rows.id(at: 0) {
                                _ = try? await feed.update(
                                    Post(id: id, revision: pick, section: sectioned ? "k\(pick % 3)" : nil))
                            }
                        default: await feed.retry()
                        }
                    }
                }
            }
            try await ReferenceModelTests.check(recorder, feed, test, "seed \(seed) burst \(burst)")
        }
        failing.value = false
        try await ReferenceModelTests.scrollToTheEnd(feed, "seed \(seed)")
        try await ReferenceModelTests.check(recorder, feed, test, "seed \(seed) end")
        let shown = Set(await feed.snapshot.ids)
        let missing = Set(server.items.map(\.id)).subtracting(shown).subtracting(removed.all)
        #expect(missing.isEmpty, "seed \(seed): never fetched \(missing.sorted())")
    }

    /// Found: the same staleness without a second process: two `Feed`s for one key on one store
    /// (two screens showing "home"). After one refreshes, the other's next pages are superseded
    /// forever. Feed+NextPage.swift commitNextPage `.superseded` never re-reads the record.
    @Test func twoFeedsForOneKeyOnOneStoreBothKeepPaginating() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let store = try test.store()
        let first = try test.feed(server.source, store: store)
        let second = try test.feed(server.source, store: store)
        await first.refresh()
        await second.refresh()
        await second.refresh()  // pull-to-refresh on the other screen, twice
        for _ in 0..<3 { await first.loadNextPage() }
        #expect(await first.snapshot.ids.count > 10, "the first screen is stuck at its first page")
    }

    // MARK: - Gaps

    /// Found: a gap whose server answers cycle cursors (n9 → X → n9 …) with nothing new makes no
    /// progress on any fill, yet never fails: only "the same cursor as asked" is caught for gaps
    /// (Feed+Gaps.swift commitGap), so an app that fills a visible gap until it closes loops
    /// forever. A next page detects the same cycle (cursorsSeen, maxPagesWithoutNewItems).
    @Test func aGapWhoseCursorsCycleWithNothingNewFailsInsteadOfLoopingForever() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap)
        do {
            let feed = try test.feed(server.source, policy: policy)
            await feed.refresh()
            server.items = .posts("n", 15) + server.items
            await feed.refresh()
        }
        let known = Array(server.items.prefix(3))  // n0…n2: rows above the gap
        let cycling = ScriptedSource<Post> { request in
            switch request {
            case .olderThan("n9"): Page(items: known, olderCursor: "X")
            case .olderThan: Page(items: known, olderCursor: "n9")
            default: server.page(for: request)
            }
        }
        let feed = try test.feed(cycling, policy: policy)
        var fills = 0
        while let gap = await feed.snapshot.gaps.first, gap.state == .idle, fills < 20 {
            await feed.loadGap(gap)
            fills += 1
        }
        #expect(fills < 20, "20 fills of a gap, none with anything new, and no failure")
        if case .failed(let error) = await feed.snapshot.gaps.first?.state {
            #expect(error.kind == .paginationLoop)
        }
    }

    /// Found: when another store fills a gap, this feed's copy of the gap is never dropped: its
    /// fills find the gap gone (fillGap returns nil, treated as superseded) and change nothing, so
    /// the "load more" row stays forever, every tap fetches a page that is thrown away, and the rows
    /// the other store wrote never appear. Feed+Gaps.swift commitGap nil / Feed+Commit.swift complete.
    @Test func aGapThatAnotherStoreFilledLeavesThisFeedToo() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap)
        let mine = try test.feed(server.source, policy: policy)
        await mine.refresh()
        server.items = .posts("n", 15) + server.items
        await mine.refresh()
        let other = try test.feed(server.source, policy: policy)
        await other.loadGap(try #require(await other.snapshot.gaps.first))
        #expect(await other.snapshot.gaps.isEmpty)
        for _ in 0..<3 {
            guard let gap = await mine.snapshot.gaps.first else { break }
            await mine.loadGap(gap)
        }
        let snapshot = await mine.snapshot
        #expect(snapshot.gaps.isEmpty, "the filled gap still shows: \(snapshot.gaps)")
        #expect(snapshot.ids == (try test.idsOnDisk()))
    }

    /// A gap's page holding ids known above and below the gap, out of order, and one id twice:
    /// only the new ids before the first id known below are inserted; the change applies.
    @Test func aGapPageWithIdsFromAboveAndBelowInOddOrdersApplies() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap)
        do {
            let feed = try test.feed(server.source, policy: policy)
            await feed.refresh()
            server.items = .posts("n", 15) + server.items
            await feed.refresh()
        }
        let odd = ScriptedSource<Post> { request in
            switch request {
            case .olderThan("n9"):
                Page(
                    items: ["n3", "n10", "n10", "n0", "n11", "p5", "n12", "p0"].map { Post(id: $0) }, olderCursor: "p0")
            default: server.page(for: request)
            }
        }
        let feed = try test.feed(odd, policy: policy)
        let recorder = await SnapshotRecorder(feed)
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))
        try await ReferenceModelTests.check(recorder, feed, test, "odd gap page")
        #expect(Array(await feed.snapshot.ids[8..<13]) == ["n8", "n9", "n10", "n11", "p0"])
    }

    /// Next pages that cycle cursors (A → B → A) or a server that answers every request with its
    /// first page: a typed paginationLoop, and retry() repeats it without looping.
    @Test func cyclingNextPageCursorsAndAFirstPageServerFailTyped() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let firstOnly = ScriptedSource<Post> { _ in server.page(for: .first) }
        let feed = try test.feed(firstOnly)
        await feed.refresh()
        await feed.loadNextPage()
        guard case .failed(let error) = await feed.snapshot.nextPage else {
            Issue.record("expected a failure, got \(await feed.snapshot.nextPage)")
            return
        }
        #expect(error.kind == .paginationLoop)
        await feed.retry()
        #expect(firstOnly.requests.count == 3)
        let cycling = ScriptedSource<Post> { request in
            switch request {
            case .olderThan("p9"): Page(items: .posts("q", 3), olderCursor: "B")
            case .olderThan("B"): Page(items: .posts("r", 3), olderCursor: "p9")
            default: server.page(for: request)
            }
        }
        let again = try test.feed(cycling)
        for _ in 0..<6 {
            await again.loadNextPage()
            if case .failed = await again.snapshot.nextPage { break }
        }
        guard case .failed(let cycle) = await again.snapshot.nextPage else {
            Issue.record("expected a failure, got \(await again.snapshot.nextPage)")
            return
        }
        #expect(cycle.kind == .paginationLoop)
        #expect(cycling.requests.count <= 5, "\(cycling.requests)")
    }

    /// Found: a refresh that rewrites the head right above a gap (rows reordered) deletes the gap
    /// and records a new one with a new id (PageStore+Writes.swift replaceHead: deleteGaps, then
    /// addGap). A fill of the gap started after that refresh began (same generation) is then thrown
    /// away as "gap gone", and the gap's identity, which migration 0002 promises survives rows
    /// moving around it, changes. (SQLite reuses the largest rowid, so it shows only when another
    /// gap in the file has a larger id.)
    @Test func aGapKeepsItsIdWhenARefreshReordersTheRowsAboveIt() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap)
        let feed = try test.feed(server.source, policy: policy)
        await feed.refresh()
        server.items = .posts("n", 15) + server.items
        await feed.refresh()
        let before = try #require(await feed.snapshot.gaps.first)
        do {  // another feed of the file records a gap after this one's
            let otherServer = ModelServer(.posts("o", 30), pageSize: 10)
            let other = try test.feed(otherServer.source, policy: policy, key: "other")
            await other.refresh()
            otherServer.items = .posts("q", 15) + otherServer.items
            await other.refresh()
            #expect(await other.snapshot.gaps.count == 1)
        }
        var items = server.items
        items.swapAt(0, 1)  // n1, n0, n2, …: the head is rewritten, the gap stays under n9
        server.items = items
        await feed.refresh()
        let after = try #require(await feed.snapshot.gaps.first)
        #expect(after.afterRow == before.afterRow)
        #expect(after.id == before.id, "the gap got a new id")
    }

    /// Loading a gap a refresh just removed does nothing and leaves nothing loading.
    @Test func loadingAGapThatARefreshRemovedDoesNothing() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .replace)
        let feed = try test.feed(server.source, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap))
        await feed.refresh()
        server.items = .posts("n", 15) + server.items
        await feed.refresh()
        let gap = try #require(await feed.snapshot.gaps.first)
        server.items = .posts("m", 15) + server.items
        let replacing = try test.feed(server.source, policy: policy)
        let recorder = await SnapshotRecorder(replacing)
        await replacing.refresh()  // no overlap, replace: the gap is gone
        #expect(await replacing.snapshot.gaps.isEmpty)
        await replacing.loadGap(gap)
        try await ReferenceModelTests.check(recorder, replacing, test, "stale gap")
        try await scrollToTheEnd(replacing)
        #expect(await replacing.snapshot.ids == server.items.map(\.id))
    }

    /// retry() racing refresh() after a failed next page and a failed refresh.
    @Test func retryRacingARefreshLeavesConsistentStates() async throws {
        let server = ModelServer(.posts("p", 40), pageSize: 10)
        let mode = Mode()
        let source = ScriptedSource<Post> { request in
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...5)))
            switch (mode.value, request) {
            case (.failRefresh, _): throw URLError(.timedOut)
            default: return server.page(for: request)
            }
        }
        let feed = try test.feed(source)
        let recorder = await SnapshotRecorder(feed)
        await feed.refresh()
        mode.value = .failRefresh
        await feed.loadNextPage()
        await feed.refresh()
        mode.value = .ok
        server.items = .posts("n", 4) + server.items
        async let a: Void = feed.retry()
        async let b: Void = feed.refresh()
        async let c: Void = feed.retry()
        _ = await (a, b, c)
        try await ReferenceModelTests.check(recorder, feed, test, "retry racing refresh")
        try await scrollToTheEnd(feed)
        #expect(await feed.snapshot.ids == server.items.map(\.id))
    }

    /// An empty first page that carries an older cursor (a server whose top page was filtered
    /// empty) must not turn a cached feed into an `empty` feed that nothing can page further.
    @Test func anEmptyFirstPageWithACursorKeepsTheFeedPageable() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try test.feed(server.source)
        await feed.refresh()
        let emptyTop = ScriptedSource<Post> { request in
            request == .first ? Page(items: [], olderCursor: "p9") : server.page(for: request)
        }
        let reopened = try test.feed(emptyTop)
        let recorder = await SnapshotRecorder(reopened)
        await reopened.refresh()
        try await ReferenceModelTests.check(recorder, reopened, test, "empty top page")
        let snapshot = await reopened.snapshot
        #expect(
            snapshot.content != .empty || snapshot.nextPage == .endReached,
            "the feed says empty while its next page (p9) still has items: \(snapshot.ids.count) rows")
    }

    // MARK: - Sections and local edits

    /// A local insert that splits a section's run, its removal (the runs merge again), and an update
    /// that moves a row into another section: each change applies as UIKit reads it.
    @Test func localEditsThatSplitAndMergeSectionRunsApply() async throws {
        let server = ModelServer(.posts("a", 6, section: "A") + .posts("b", 6, section: "B"), pageSize: 20)
        let feed = try test.feed(server.source)
        let recorder = await SnapshotRecorder(feed)
        await feed.refresh()
        try await feed.insert(Post(id: "x", section: "B"), at: 2)
        try await ReferenceModelTests.check(recorder, feed, test, "split")
        try await feed.remove(id: "x")
        try await ReferenceModelTests.check(recorder, feed, test, "merge")
        try await feed.update(Post(id: "a3", revision: 1, section: "B"))
        try await ReferenceModelTests.check(recorder, feed, test, "update into another section")
        try await feed.update(Post(id: "a3", revision: 2, section: "A"))
        try await feed.insert(Post(id: "y", section: "A"), at: 12)
        try await feed.insert(Post(id: "z", section: "C"), at: 0)
        try await ReferenceModelTests.check(recorder, feed, test, "recurring")
        for id in ["z", "y"] + (0..<6).map({ "b\($0)" }) { try await feed.remove(id: id) }
        try await ReferenceModelTests.check(recorder, feed, test, "remove all B")
        for id in (0..<6).map({ "a\($0)" }) { try await feed.remove(id: id) }
        try await ReferenceModelTests.check(recorder, feed, test, "remove every row")
        #expect(await feed.snapshot.content == .empty)
        await feed.refresh()
        try await ReferenceModelTests.check(recorder, feed, test, "refresh after removing every row")
    }

    /// Local rows at row 0, at rowCount and right under a gap at the very bottom, trims of 0, 1 and
    /// huge in between, then scrolling to the end: every server item once, in order.
    @Test func localRowsUnderABottomGapWithTrimsSkipNothing() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap)
        let feed = try test.feed(server.source, policy: policy)
        let recorder = await SnapshotRecorder(feed)
        await feed.refresh()
        server.items = .posts("n", 15) + server.items
        await feed.refresh()
        for index in 0..<10 { try await feed.remove(id: "p\(index)") }  // the gap is at the bottom now
        try await ReferenceModelTests.check(recorder, feed, test, "bottom gap")
        let count = await feed.snapshot.rows.count
        try await feed.insert(Post(id: "bottom"), at: count)
        try await feed.insert(Post(id: "top"), at: 0)
        try await ReferenceModelTests.check(recorder, feed, test, "local rows")
        for limit in [Int.max, 1, 0] { try await feed.trim(maxRows: limit) }
        try await ReferenceModelTests.check(recorder, feed, test, "trims")
        try await scrollToTheEnd(feed)
        try await ReferenceModelTests.check(recorder, feed, test, "end")
        let shown = await feed.snapshot.ids.filter { $0 != "top" && $0 != "bottom" }
        let listed = server.items.map(\.id)
        #expect(shown.filter(Set(listed).contains) == listed.filter(Set(shown).contains))
        #expect(
            Set(listed).subtracting(shown).isSubset(of: Set((0..<10).map { "p\($0)" })),
            "missing: \(Set(listed).subtracting(shown).sorted())")
    }

    /// A version-1 file (gaps as pairs of rows) with a gap whose rows are gone, migrated on open:
    /// the gap keeps its place, fills, and the file verifies.
    @Test func aVersionOneFileWithGapsMigratesAndItsGapsFill() async throws {
        let migrations = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Migrations/0001_create_feed_store.sql").standardized
        let schema = try String(contentsOf: migrations, encoding: .utf8)
        let connection = try Connection(path: test.path, mode: .readWrite)
        try connection.execute(schema)
        try connection.execute("PRAGMA user_version = 1")
        var inserts = [
            "INSERT INTO feed (id, key, oldest_cursor, row_count, top_position, bottom_position, loaded, generation) VALUES (1, 'home', 'p9', 20, -10000, 9000, 1, 2)",
            "INSERT INTO page VALUES (1, -1, 'first', NULL, 'n9', NULL, 0, 10)",
            "INSERT INTO page VALUES (1, 0, 'first', NULL, 'p9', NULL, 0, 10)",
            "INSERT INTO gap VALUES (1, -1000, 0, 'n9', 0)",
            "INSERT INTO gap VALUES (1, 500, 600, NULL, 0)",
        ]
        for index in 0..<10 {
            inserts.append(
                "INSERT INTO item VALUES (1, 'n\(index)', \(-10000 + index * 1000), -1, NULL, '{\"id\":\"n\(index)\",\"revision\":0}')"
            )
            inserts.append(
                "INSERT INTO item VALUES (1, 'p\(index)', \(index * 1000), 0, NULL, '{\"id\":\"p\(index)\",\"revision\":0}')"
            )
        }
        for statement in inserts { try connection.execute(statement) }
        let server = ModelServer(.posts("n", 15) + .posts("p", 30), pageSize: 10)
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap)
        let feed = try test.feed(server.source, policy: policy)
        let recorder = await SnapshotRecorder(feed)
        let gaps = await feed.snapshot.gaps
        #expect(gaps.map(\.afterRow) == [9, 10])
        for gap in gaps { await feed.loadGap(gap) }
        try await ReferenceModelTests.check(recorder, feed, test, "migrated")
        #expect(Array(await feed.snapshot.ids.prefix(16)) == (0..<15).map { "n\($0)" } + ["p0"])
    }

    /// Found: a refresh whose caller's task is cancelled (a SwiftUI `.task` or `.refreshable` that
    /// ends when the view goes away) is recorded as a failed fetch: the CancellationError shows as
    /// `refresh: failed`, and on a feed with nothing cached as content `error`, though nothing
    /// failed. Feed+Refresh.swift refresh() catch / Feed+Commit.swift complete.
    @Test func cancellingTheCallersTaskIsNotAFailure() async throws {
        let source = ScriptedSource<Post> { _ in
            try await Task.sleep(for: .seconds(10))
            return Page(items: .posts("p", 3), olderCursor: nil)
        }
        let feed = try test.feed(source)
        let caller = Task { await feed.refresh() }
        try await Task.sleep(for: .milliseconds(50))
        caller.cancel()
        await caller.value
        let snapshot = await feed.snapshot
        #expect(snapshot.refresh == .idle, "refresh \(snapshot.refresh), content \(snapshot.content)")
        if case .error = snapshot.content { Issue.record("a cancelled first load shows an error screen") }
    }

    // MARK: - Hostile files

    /// A feed with rows n0…n9, a gap, p0…p9 (next page p9) on disk, then `sql` run on the file by
    /// another connection, as a person with `sqlite3` would.
    func hostileFeed(_ sql: [String]) async throws -> (Feed<Post>, ModelServer) {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap)
        do {
            let feed = try test.feed(server.source, policy: policy)
            await feed.refresh()
            server.items = .posts("n", 15) + server.items
            await feed.refresh()
        }
        let connection = try Connection(path: test.path, mode: .readWrite)
        for statement in sql { try connection.execute(statement) }
        return (try test.feed(server.source, policy: policy), server)
    }

    /// Every operation of a feed, each followed by the state checks; nothing may trap, loop or hang.
    func everyOperation(_ feed: Feed<Post>, _ context: String) async throws {
        func check(_ step: String) async {
            await feed.waitUntilIdle()
            let snapshot = await feed.snapshot
            #expect(snapshot.rows.count >= 0, "\(context) \(step): a row count of \(snapshot.rows.count)")
            #expect(snapshot.refresh != .loading, "\(context) \(step): refresh loading with nothing in flight")
            #expect(snapshot.nextPage != .loading, "\(context) \(step): next page loading with nothing in flight")
            #expect(!snapshot.gaps.contains { $0.state == .loading }, "\(context) \(step): a gap loading")
            if snapshot.rows.count >= 0 {
                let ids = snapshot.rows.indices.compactMap { snapshot.rows.id(at: $0) }
                #expect(Set(ids).count == ids.count, "\(context) \(step): an id twice")
            }
        }
        await check("open")
        let count = max(await feed.snapshot.rows.count, 0)
        for row in [0, count / 2, count - 1, count] { await feed.rowDidAppear(row) }
        await check("rowDidAppear")
        await feed.start()
        await check("start")
        await feed.refresh()
        await check("refresh")
        await feed.loadNextPage()
        await check("loadNextPage")
        for gap in await feed.snapshot.gaps { await feed.loadGap(gap) }
        await check("loadGap")
        for (index, row) in [0, count, count / 2].enumerated() {
            do { try await feed.insert(Post(id: "local\(index)"), at: row) } catch is FeedError {}
            await check("insert at \(row)")
        }
        do { try await feed.update(Post(id: "p0", revision: 7)) } catch is FeedError {}
        await check("update")
        do { try await feed.remove(id: "n0") } catch is FeedError {}
        await check("remove")
        for limit in [Int.max, 1, 0] {
            do { try await feed.trim(maxRows: limit) } catch is FeedError {}
            await check("trim \(limit)")
        }
        await feed.retry()
        await check("retry")
        await feed.loadNextPage()
        await check("loadNextPage again")
    }

    /// Found: `row_count` is trusted from the file. Edited to -1, the snapshot's `rows` is a
    /// collection of count -1 (endIndex < startIndex): `rows.indices`/`map` trap and a `for` loop
    /// never ends. FeedSnapshot.rows from FeedRecord.rowCount (Feed.swift snapshot(record:…)).
    @Test func aNegativeRowCountInTheFileNeverMakesANegativeCollection() async throws {
        let (feed, _) = try await hostileFeed(["UPDATE feed SET row_count = -1"])
        #expect(await feed.snapshot.rows.count >= 0)
    }

    @Test func everyOperationOnAFileWithPositionsNearInt64MaxFailsTypedNeverTraps() async throws {
        let (feed, _) = try await hostileFeed([
            "CREATE TEMP TABLE d AS SELECT 9223372036854775807 - max(position) - 5 AS v FROM item",
            "UPDATE item SET position = position + (SELECT v FROM d)",
            "UPDATE gap SET above_position = above_position + (SELECT v FROM d)",
            "UPDATE feed SET top_position = top_position + (SELECT v FROM d), bottom_position = bottom_position + (SELECT v FROM d)",
        ])
        try await everyOperation(feed, "positions near Int64.max")
    }

    @Test func everyOperationOnAFileWithPositionsNearInt64MinFailsTypedNeverTraps() async throws {
        let (feed, _) = try await hostileFeed([
            "CREATE TEMP TABLE d AS SELECT -9223372036854775808 - min(position) + 5 AS v FROM item",
            "UPDATE item SET position = position + (SELECT v FROM d)",
            "UPDATE gap SET above_position = above_position + (SELECT v FROM d)",
            "UPDATE feed SET top_position = top_position + (SELECT v FROM d), bottom_position = bottom_position + (SELECT v FROM d)",
        ])
        try await everyOperation(feed, "positions near Int64.min")
    }

    @Test func everyOperationOnAFileWithGenerationAtInt64MaxFailsTypedNeverTraps() async throws {
        let (feed, _) = try await hostileFeed(["UPDATE feed SET generation = 9223372036854775807"])
        try await everyOperation(feed, "generation = Int64.max")
    }

    @Test func everyOperationOnAFileWithAGapWithANullCursorFailsTypedNeverTraps() async throws {
        let (feed, _) = try await hostileFeed(["UPDATE gap SET cursor = NULL"])
        try await everyOperation(feed, "gap cursor NULL")
    }

    @Test func everyOperationOnAFileWithAGapBelowTheBottomRowFailsTypedNeverTraps() async throws {
        let (feed, _) = try await hostileFeed([
            "UPDATE gap SET above_position = (SELECT max(position) FROM item) + 1000"
        ])
        try await everyOperation(feed, "gap below the bottom row")
    }

    @Test func everyOperationOnAFileWithASecondGapWithTheSameCursorAtTheTopFailsTypedNeverTraps() async throws {
        let (feed, _) = try await hostileFeed([
            "INSERT INTO gap (feed_id, above_position, cursor, created_at) SELECT feed_id, (SELECT min(position) FROM item) - 1, cursor, created_at FROM gap"
        ])
        try await everyOperation(feed, "two gaps, one cursor")
    }

    @Test func everyOperationOnAFileWithPagesWithNegativeRowCountsFailsTypedNeverTraps() async throws {
        let (feed, _) = try await hostileFeed(["UPDATE page SET row_count = -5"])
        try await everyOperation(feed, "page row_count -5")
    }

    @Test func everyOperationOnAFileWithARowCountLargerThanTheRowsFailsTypedNeverTraps() async throws {
        let (feed, _) = try await hostileFeed(["UPDATE feed SET row_count = 1000"])
        try await everyOperation(feed, "row_count 1000 for 20 rows")
    }

    @Test func everyOperationOnAFileWithMissingTopAndBottomPositionsFailsTypedNeverTraps() async throws {
        let (feed, _) = try await hostileFeed(["UPDATE feed SET top_position = NULL, bottom_position = NULL"])
        try await everyOperation(feed, "top/bottom NULL")
    }

    /// Found: page row counts are summed from the file with trapping `+`: with two pages whose
    /// `row_count` is near Int64.max, `trim(maxRows: .max)` (or any trim keeping both pages) crashes
    /// the process on arithmetic overflow instead of failing with a typed error.
    /// PageStore+Edits.swift trim(_:maxRows:) `rows += page.rowCount`, trim(_:keepingPages:) reduce.
    @Test func aHugePageRowCountInTheFileNeverCrashesATrim() async throws {
        await #expect(processExitsWith: .success) {
            let (test, reopened) = try await Self.reopened(
                pages: 2, after: "UPDATE page SET row_count = 9223372036854775807")
            _ = try? await reopened.trim(maxRows: .max)
            _ = try? await reopened.trim(maxRows: 15)
            _ = test  // the file lives as long as the test case
        }
    }

    /// Found: the feed's `row_count` is added to with trapping `+`: edited to Int64.max, the first
    /// next page (or local insert, or refresh) crashes the process on overflow instead of failing
    /// with a typed error. PageStore+Writes.swift appendPage `feed.rowCount += inserted.count`
    /// (also insertItem, prependPage, fillGap).
    @Test func aHugeFeedRowCountInTheFileNeverCrashesAWrite() async throws {
        await #expect(processExitsWith: .success) {
            let (test, reopened) = try await Self.reopened(
                pages: 1, after: "UPDATE feed SET row_count = 9223372036854775807")
            await reopened.loadNextPage()
            _ = try? await reopened.insert(Post(id: "x"), at: 0)
            _ = test  // the file lives as long as the test case
        }
    }

    /// A feed of `pages` pages of 10 from a 30-item server, the file then edited with `sql`, and the
    /// feed opened again on it (for exit tests, whose bodies run in a process of their own).
    static func reopened(pages: Int, after sql: String) async throws -> (FeedTestCase, Feed<Post>) {
        let test = try FeedTestCase()
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try test.feed(server.source)
        await feed.refresh()
        for _ in 1..<max(pages, 1) { await feed.loadNextPage() }
        try Connection(path: test.path, mode: .readWrite).execute(sql)
        return (test, try test.feed(server.source))
    }

    /// Found: a last refresh recorded in the future (the device clock was ahead, then corrected)
    /// makes `refreshOnOpen: .whenOlderThan` skip every refresh until that moment arrives:
    /// `Date().timeIntervalSince(last) < seconds` is negative (Feed+Refresh.swift start()).
    @Test func aLastRefreshInTheFutureDoesNotBlockRefreshOnOpen() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let policy = FeedPolicy(refreshOnOpen: .whenOlderThan(seconds: 60))
        do { await (try test.feed(server.source, policy: policy)).refresh() }
        let connection = try Connection(path: test.path, mode: .readWrite)
        let yearAhead = Int64((Date().timeIntervalSince1970 + 365 * 86_400) * 1000)
        try connection.execute("UPDATE feed SET last_refresh_at = \(yearAhead)")
        server.items = .posts("n", 2) + server.items
        let source = server.source
        let feed = try test.feed(source, policy: policy)
        await feed.start()
        #expect(source.requests == [.first], "a cache 'refreshed' a year from now is never stale")
    }

    // MARK: - Helpers

    func scrollToTheEnd(_ feed: Feed<Post>) async throws {
        for _ in 0..<100 {
            let snapshot = await feed.snapshot
            if let gap = snapshot.gaps.first {
                await feed.loadGap(gap)
                continue
            }
            if snapshot.nextPage == .endReached { return }
            await feed.loadNextPage()
            if case .failed(let error) = await feed.snapshot.nextPage {
                Issue.record("next page failed: \(error)")
                return
            }
        }
    }
}
