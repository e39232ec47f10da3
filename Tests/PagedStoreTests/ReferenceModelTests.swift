import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore
@testable import PagedStoreFixtures

/// The reference-model test: a model of the server's list, random sequences of every operation of a
/// feed, and after every step the checks that bind the features together.
///
/// Operations: items appearing on top (and bumped to the top, in keepGap sequences of lists ordered
/// by activity), edited and deleted on the server; refresh, next page (also racing a refresh), prefetch through `rowDidAppear` and
/// `setVisibleRows`, gap fills from either end (and gaps filled by a refresh), unfillable gaps dismissed, local inserts (also right under a
/// gap), updates and removals (also of the row above a gap), optimistic updates, inserts and removals
/// whose call succeeds or fails after a refresh, a next page or new server items landed, queued edits
/// (by kind, through the store's outbox) whose held send is confirmed, rejected, or retryable and then
/// sent again on resume or by a relaunch (which registers the handler again), runs of queued removals
/// of the top or bottom rows rejected (some after a retry) once a refresh or a next page landed, trims by
/// rows, relaunches that trim by age, another store opening the feed, another store writing the feed
/// before this one reads or writes it (a second writer), rows the app's model can no longer decode (a
/// codec that refuses some ids), callers cancelled while their
/// fetch is held, `retry()`, and a next page whose answer lands after a refresh replaced the list it
/// was read from; one fetch in eight fails and responses complete
/// out of order. Servers page by
/// cursor (`max_id`, and `min_id` for refreshes by the newer cursor, whose newest page may carry no
/// newer cursor) or by page number (so every list's second page is `2`); gap policy, refresh mode,
/// item order and row limits vary by sequence.
///
/// After every step: each snapshot's change turns the previous rows into the next (as UIKit reads a
/// batch); no id appears twice; the feed equals the file; nothing says loading without a fetch in
/// flight; the identifiers a diffable data source is built from are the rows, each id and section
/// once, and reconfigured ids name rows that exist; every anchor names the row on top of the screen
/// before and after its change, and the reader's row follows every change; a relaunch opens at the
/// saved reading position. In half of the sequences the posts are searchable (their id and
/// section): after every step, random queries through the app's store and the widget's read-only
/// one find exactly what a plain scan of the feed's rows finds, each item once. At the end of each sequence the server stops failing, and "scrolling to the end" (a
/// refresh, filling every gap, every next page) must show exactly the server's list, in order, plus
/// only rows that are local or that the server deleted: no server item is ever skipped, and no row the
/// server deleted stands between two items of one page the scroll fetched.
///
/// `PAGEDSTORE_MODEL_SEQUENCES=N` runs N sequences (default 60) from seed 0x5EED0000, or from
/// `PAGEDSTORE_MODEL_FIRST_SEED` (to run seeds CI does not); `PAGEDSTORE_MODEL_SEED=S` replays one.
@Suite(.limit(minutes: 15)) struct ReferenceModelTests {
    static var seeds: [UInt64] {
        let environment = ProcessInfo.processInfo.environment
        if let seed = environment["PAGEDSTORE_MODEL_SEED"].flatMap(UInt64.init) { return [seed] }
        let count = environment["PAGEDSTORE_MODEL_SEQUENCES"].flatMap(Int.init) ?? 60
        let first = environment["PAGEDSTORE_MODEL_FIRST_SEED"].flatMap(UInt64.init) ?? 0x5EED_0000
        return (0..<UInt64(count)).map { first + $0 }
    }

    /// The sequences in four parts that run side by side: one part after another was the longest
    /// path of the whole suite's run.
    @Test(arguments: 0..<4) func noServerItemIsEverSkippedAndEveryStateHolds(part: Int) async throws {
        for (index, seed) in Self.seeds.enumerated() where index % 4 == part {
            try await Post.$isSearchable.withValue(seed % 2 == 1) { try await Self.run(seed: seed) }
        }
    }

    static func run(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        let test = try FeedTestCase()
        let server = TimelineModel(
            count: Int.random(in: 0...40, using: &random), pageSize: Int.random(in: 3...10, using: &random),
            byPageNumber: Int.random(in: 0..<4, using: &random) == 0, sectioned: Bool.random(using: &random),
            headPageHasNewerCursor: Bool.random(using: &random))
        let faults = DelaySchedule(seed: random.next())
        let failing = Locked(true)
        let scrolled = Locked<[[String]]>([])
        let gate = FetchGate()
        // The next fetch is held here while `holding` is set: a caller is cancelled while it waits.
        let held = ScriptedSource<Post>()
        let holding = Locked(false)
        let source = ScriptedSource<Post> { request in
            if holding.take() { return try await held.fetch(request) }
            let page = server.page(for: request)  // the list as it is when the request arrives
            if case .olderThan = request { await gate.pass() }
            try await Task.sleep(for: .microseconds(faults.next() / 2))
            if failing.value, faults.shouldFail() { throw URLError(.timedOut) }
            if !failing.value { scrolled.append(page.items.map(\.id)) }
            return page
        }
        var policy = FeedPolicy(
            // A gap's cursor must name a place in the list (max_id): a page number names a place only
            // until items arrive on top, so page-numbered lists use the replace policy.
            refreshOnOpen: .never,
            gapPolicy: server.byPageNumber || Bool.random(using: &random) ? .replace : .keepGap,
            refreshMode: !server.byPageNumber && Bool.random(using: &random)
                ? .newerThanHead(maxPages: Int.random(in: 1...3, using: &random)) : .firstPage,
            windowSize: 100_000, firstScreenRows: 100_000,
            maxRows: Bool.random(using: &random) ? nil : Int.random(in: 5...40, using: &random),
            maxAge: Int.random(in: 0..<4, using: &random) == 0 ? 60 : nil,
            autoFillGapPages: Int.random(in: 0..<3, using: &random) == 0 ? Int.random(in: 1...2, using: &random) : 0,
            keepsReadingPosition: Bool.random(using: &random))
        // Half the keepGap lists are ordered by activity, and only those have items bumped to the
        // top: a list ordered by creation keeps each item's place. Drawn apart, so that each seed's
        // operations are the ones it drew before the order existed.
        var orders = SplitMix64(seed: seed ^ 0x0D_E2)
        if policy.gapPolicy == .keepGap, Bool.random(using: &orders) { policy.itemOrder = .byActivity }
        // The items the app's model can no longer read (as after an update that changed the model):
        // their rows go when read, and come back only to go again.
        let refused = RefusedIDs()
        let codec = refused.codec
        // Queued edits are answered by the step that made them: the handler holds each send.
        let answers = QueuedEditAnswers()
        var store = try test.store()
        await answers.register(on: store)
        // A widget's read-only store: its badge follows every queued edit the app's stores write.
        let widget = try FeedStore(path: test.path, readOnly: true)
        let badge = await OutboxStatusLog(widget.outbox)
        var feed = try test.feed(source, policy: policy, store: store, codec: codec)
        var recorder = await SnapshotRecorder(feed)
        var events = await EventRecorder(feed)
        var locals = Set<String>()
        var removedLocally = Set<String>()
        let context =
            "seed \(seed) (\(server.byPageNumber ? "page numbers" : "cursors"), \(policy.gapPolicy), \(policy.refreshMode), "
            + "\(policy.itemOrder))"

        /// A relaunch: a new store on the file (the handler registered again, so that a queued edit
        /// still pending is sent again), at the saved reading position, trimmed by age; with
        /// `rowsLeaving`, an update of the app whose model no longer reads the old rows.
        func relaunch(_ step: Int, rowsLeaving: RowsLeaving? = nil) async throws {
            try await check(recorder, feed, test, "\(context) step \(step)")
            await checkFollowedExactly(events, feed, "\(context) step \(step)")
            try await feed.saveReadingPosition()
            let place = await feed.readingPosition
            // The old store goes as the app's process does: it sends nothing more.
            store.close()
            switch rowsLeaving {
            case .newCacheVersion: policy.cacheVersion += 1
            case .undecodable(let id): refused.insert(id)
            case nil: break
            }
            store = try test.store()
            await answers.register(on: store)
            feed = try test.feed(source, policy: policy, store: store, codec: codec)
            recorder = await SnapshotRecorder(feed)
            events = await EventRecorder(feed)
            let reopened = await feed.snapshot
            if policy.keepsReadingPosition, let place, let row = reopened.ids.firstIndex(of: place.itemID) {
                #expect(
                    reopened.anchor
                        == ScrollAnchor(itemID: place.itemID, rowBefore: nil, rowAfter: row, offset: place.offset),
                    "\(context) step \(step): the relaunched feed is not at the saved position")
            }
            test.clock.advance(by: .seconds(61))
            await feed.start()  // trims by age when the policy has one
        }

        let trace = TestEnvironment.tracesModels
        // The queries draw from their own sequence: a seed's operations are the same searchable or not.
        var queries = SplitMix64(seed: seed ^ 0x5EA2_C4)
        for step in 0..<30 {
            let current = feed
            let snapshot = await feed.snapshot
            let operation = Int.random(in: 0..<22, using: &random)
            if trace {
                print("step \(step) op \(operation) rows \(snapshot.ids) gaps \(snapshot.gaps.map(\.afterRow))")
                print("  server \(server.items.map(\.id)) refused \(refused.ids.sorted()) next \(snapshot.nextPage)")
            }
            switch operation {
            case 0, 1: server.publish(Int.random(in: 1...12, using: &random))
            case 2: server.editOrDelete(using: &random)
            case 21:
                // Only in lists the feed is told are ordered by activity, which are keepGap ones: the
                // replace policy, which shows no gaps, joins the rows below a page that ends with new
                // items to it (``FeedPolicy/GapPolicy``). Half the time the row on top of the feed
                // moves up, often between posts published before and after it: the next page that
                // lists it ends on it, or lists it after new posts, above posts the feed never had.
                guard policy.itemOrder == .byActivity else { break }
                let pageSize = server.pageSize
                if Bool.random(using: &random) { server.publish(Int.random(in: 1...pageSize, using: &random)) }
                if Bool.random(using: &random), let top = snapshot.ids.first {
                    server.bump(top)
                } else {
                    server.bump(using: &random)
                }
                if Bool.random(using: &random) { server.publish(Int.random(in: 1...pageSize, using: &random)) }
            case 3: await feed.refresh()
            case 4:
                async let a: Void = current.refresh()
                async let b: Void = current.loadNextPage()
                _ = await (a, b)
            case 5: await feed.loadNextPage()
            case 6:
                if snapshot.rows.count > 0 {
                    let first = Int.random(in: 0..<snapshot.rows.count, using: &random)
                    if Bool.random(using: &random) {
                        await feed.rowDidAppear(first)
                    } else {
                        let last = Int.random(in: first..<min(first + 8, snapshot.rows.count), using: &random)
                        await feed.setVisibleRows(first..<(last + 1), offset: Double(step))
                    }
                }
            case 7:
                if let gap = snapshot.gaps.randomElement(using: &random) {
                    await feed.loadGap(gap, from: gap.canFillFromBottom && Bool.random(using: &random) ? .bottom : .top)
                }
            case 8:
                let id = "local\(seed)-\(step)"
                let row =
                    snapshot.gaps.randomElement(using: &random).map { $0.afterRow + 1 }
                    ?? Int.random(in: 0...snapshot.rows.count, using: &random)
                try await feed.insert(Post(id: id, section: server.sectioned ? "local" : nil), at: row)
                locals.insert(id)
            case 9:
                // Often the row right above a gap: the gap must survive it.
                let aboveGap = snapshot.gaps.first.flatMap {
                    $0.afterRow >= 0 ? snapshot.rows.id(at: $0.afterRow) : nil
                }
                if let id = aboveGap ?? snapshot.ids.randomElement(using: &random) {
                    if Bool.random(using: &random) {
                        try await feed.remove(id: id)
                        removedLocally.insert(id)
                    } else {
                        let section = snapshot.sections.last { $0.firstRow <= row(of: id, in: snapshot) }?.key
                        try await feed.update(Post(id: id, revision: 100 + step, section: section))
                    }
                }
            case 10:
                try await trimKeepingEditedRows(
                    feed, to: Int.random(in: 0...30, using: &random), "\(context) step \(step)")
            case 17:
                // A next page read from the old list answers after a refresh replaced the list (more
                // new posts than a page: no overlap). Page-numbered lists then repeat its cursor.
                gate.arm()
                let next = Task {
                    await current.loadNextPage()
                    gate.finished()
                }
                if await gate.arrival() {
                    server.publish(server.pageSize * 2 + 1)
                    await current.refresh()
                }
                gate.release()
                await next.value
            case 19:
                if let id = snapshot.ids.randomElement(using: &random) { refused.insert(id) }
            case 11: await feed.retry()
            case 12:
                if let edited = try await optimisticEdit(
                    feed, snapshot, server: server, test: test, step: "local\(seed)-\(step)", using: &random)
                {
                    switch edited {
                    case .insert(let id): locals.insert(id)
                    case .remove(let id): removedLocally.insert(id)
                    }
                }
            case 16:
                try await cancelledCaller(
                    current, snapshot, holding: holding, held: held, server: server, source: source,
                    using: &random, "\(context) step \(step)")
            case 18:
                try await secondWriter(
                    feed, snapshot, test: test, source: source, policy: policy, codec: codec,
                    id: "other\(seed)-\(step)", locals: &locals, removedLocally: &removedLocally, using: &random)
            case 15:
                try await anotherStoreOpens(
                    feed, snapshot, policy: policy, revision: 1_000 + step, test, "\(context) step \(step)")
            case 20:
                let queued = try await queuedEdit(
                    feed, store, snapshot, answers: answers, badge: badge, server: server, test: test,
                    step: "queued\(seed)-\(step)", using: &random)
                if var replay = queued.replay {
                    // Offline: the edit waits for the relaunch, which sends it again; sometimes the
                    // relaunch is of an app whose model no longer reads the edit's row.
                    let leaving = RowsLeaving.random(for: replay.check, using: &random)
                    replay.rowLeft = leaving != nil
                    try await relaunch(step, rowsLeaving: leaving)
                    try await replay.answer(in: feed, store, answers, test, "\(context) step \(step) replayed")
                }
                await badge.expectStatus("\(context) step \(step): the widget's badge showing no edit") {
                    $0.count == 0
                }
                switch queued.committed {
                case .insert(let id): locals.insert(id)
                case .remove(let id): removedLocally.insert(id)
                case nil: break
                }
            default:
                try await relaunch(step)
            }
            try await check(recorder, feed, test, "\(context) step \(step)")
            await checkFollowedExactly(events, feed, "\(context) step \(step)")
            if Post.isSearchable {
                try checkSearch(
                    [store, widget], test, codec: codec, refused: refused.ids, using: &queries,
                    "\(context) step \(step)")
            }
        }

        failing.value = false
        if Bool.random(using: &random) {
            // A long absence: posts deleted, then more new ones than two pages, so that the scroll
            // fills gaps right above the deleted rows.
            for _ in 0..<3 { server.editOrDelete(using: &random) }
            server.publish(server.pageSize * 2 + 1)
        }
        try await scrollToTheEnd(
            feed, context, refreshingFirst: true, retryingFailures: true, fillingGapsFromBothEnds: true)
        try await check(recorder, feed, test, "\(context) end")
        await checkFollowedExactly(events, feed, "\(context) end")
        let shown = await feed.snapshot.ids
        // A row removed locally may stay away (nothing fetched its place again) or come back.
        // One the app's model cannot read is shown only until its row is read again.
        let unreadable = refused.ids
        let serverIDs = server.items.map(\.id).filter { !removedLocally.contains($0) && !unreadable.contains($0) }
        let listed = Set(serverIDs)
        #expect(shown.filter(listed.contains) == serverIDs, "\(context): the feed skipped or misordered server items")
        let extra = Set(shown).subtracting(listed).subtracting(locals).subtracting(server.deleted)
            .subtracting(removedLocally).subtracting(unreadable)
        #expect(extra.isEmpty, "\(context): rows that are neither on the server, local nor deleted: \(extra)")
        // Each page of the scroll listed a stretch of the server's list without holes: a row the
        // server deleted cannot stand between two of its items, unless it would take more
        // deletions than the page has items to prove it.
        let deleted = server.deleted
        for page in scrolled.value {
            let rows = page.compactMap { shown.firstIndex(of: $0) }
            guard let first = rows.min(), let last = rows.max() else { continue }
            let stale = shown[first...last].filter(deleted.contains)
            #expect(
                stale.isEmpty || stale.count > page.count,
                "\(context): \(stale) deleted on the server, still shown inside the page \(page)")
        }
    }

    /// Random queries, through the app's store and the widget's read-only one, find exactly what a
    /// plain scan of the feed's rows in the file finds (rows the model can no longer decode left
    /// out), each item once; through one of the two, in windows too (``checkSearchOrder``).
    static func checkSearch(
        _ stores: [FeedStore], _ test: FeedTestCase, codec: ItemCodec<Post>, refused: Set<String>,
        using random: inout SplitMix64, _ context: String
    ) throws {
        func words(_ post: Post) -> [String] { Reference.words(in: post.id + "\n" + (post.section ?? "")) }
        let documents = try test.itemsOnDisk(of: Post.self, key: "home").filter { !refused.contains($0.id) }
        let inWindows = stores.randomElement(using: &random)
        for store in stores {
            let word = documents.randomElement(using: &random).flatMap { words($0).randomElement(using: &random) }
            let typed = String((word ?? "nothing").prefix(Int.random(in: 1...4, using: &random)))
            let terms = Reference.terms(in: typed, prefixLast: true)
            let expected = Set(documents.filter { Reference.matches(terms, words($0)) }.map(\.id))
            let found = try store.search(typed, as: Post.self, in: ["home"], limit: 10_000, codec: codec).map(\.id)
            #expect(Set(found) == expected, "\(context): \"\(typed)\" \(store.isReadOnly ? "(read-only store)" : "")")
            #expect(Set(found).count == found.count, "\(context): \"\(typed)\" found an item twice")
            if store === inWindows {
                try checkSearchOrder(typed, in: store, expected: expected, refused: refused, using: &random, context)
            }
        }
    }

    /// In an order taken at random, the results read in windows of a few (each starting after the
    /// last result of the one before) follow each other as one read lists them, in the documented
    /// order (best rank first, then the newest document; or the newest first, as a word being
    /// typed that matches more than a limit taken at random is listed), and find what the
    /// scan finds (besides the rows the model cannot decode, which a search lists and the app's
    /// type skips). One read transaction: the ranks cannot move between the windows.
    static func checkSearchOrder(
        _ typed: String, in store: FeedStore, expected: Set<String>, refused: Set<String>,
        using random: inout SplitMix64,
        _ context: String
    ) throws {
        let size = Int.random(in: 1...4, using: &random)
        let recent = Bool.random(using: &random)
        let broadAt = Int.random(in: 0...8, using: &random)
        let (whole, windows) = try store.queue.read { file in
            let whole = try CachedSearch.find(
                typed, in: file, feeds: ["home"], recent: recent, limit: 10_000, broadPrefixMatches: broadAt)
            var windows: [CachedSearch.Match] = []
            while windows.count <= whole.count {
                let next = try CachedSearch.find(
                    typed, in: file, feeds: ["home"], recent: recent, after: windows.last, limit: size,
                    broadPrefixMatches: broadAt)
                windows += next
                if next.count < size { break }
            }
            return (whole, windows)
        }
        let order = recent ? "newest first" : "best first"
        #expect(Set(whole.map(\.id)).subtracting(refused) == expected, "\(context): \"\(typed)\" \(order)")
        #expect(
            windows.map(\.id) == whole.map(\.id),
            "\(context): \"\(typed)\" \(order) in windows of \(size) lists otherwise")
        let keys = whole.map(\.position)
        let ordered = zip(keys, keys.dropFirst()).allSatisfy { above, below in
            above.rank < below.rank || (above.rank == below.rank && above.doc > below.doc)
        }
        #expect(ordered, "\(context): \"\(typed)\" \(order) out of order: \(keys)")
        // A word being typed that matches more than the limit (in this feed alone already) lists
        // newest first, whatever was asked.
        if recent || whole.count > broadAt {
            #expect(
                keys.allSatisfy { $0.order == .recency && $0.rank == 0 },
                "\(context): \"\(typed)\" with \(whole.count) matches over \(broadAt) is not newest first")
        }
    }

    /// What an optimistic edit that committed left behind, for the final comparison with the server.
    enum Committed {
        case insert(String)
        case remove(String)
    }

    /// An optimistic update, insert or remove whose server call lets a refresh, a next page or a
    /// server change land first, and then succeeds or fails.
    static func optimisticEdit(
        _ feed: Feed<Post>, _ snapshot: FeedSnapshot<Post>, server: TimelineModel, test: FeedTestCase,
        step: String, using random: inout SplitMix64
    ) async throws -> Committed? {
        let succeeds = Bool.random(using: &random)
        let meanwhile = Int.random(in: 0..<4, using: &random)
        let publish = Int.random(in: 1...4, using: &random)
        // The edit in flight: whatever lands meanwhile, the feed and the file show it until the call ends.
        let pending = Locked<PendingCheck?>(nil)
        let call: @Sendable (Post) async throws -> Void = { _ in
            await land(meanwhile, on: feed, server: server, publishing: publish, "\(step): \(meanwhile)")
            if let check = pending.value { try await check.holds(in: feed, test, "\(step): \(meanwhile)") }
            if !succeeds { throw URLError(.badServerResponse) }
        }
        let id = snapshot.ids.randomElement(using: &random)
        do {
            switch Int.random(in: 0..<3, using: &random) {
            case 0:
                guard let id else { return nil }
                pending.value = .update(id)
                try await feed.edit(id: id, { $0.revision += 1_000 }, commit: call)
            case 1:
                let row = Int.random(in: 0...snapshot.rows.count, using: &random)
                pending.value = .insert(step)
                try await feed.insert(Post(id: step, section: server.sectioned ? "local" : nil), at: row, commit: call)
                return .insert(step)
            default:
                guard let id else { return nil }
                pending.value = .remove(id)
                try await feed.remove(id: id, commit: call)
                return .remove(id)
            }
        } catch is URLError {
            #expect(try await feed.pendingEdits().isEmpty, "a failed call left its edit pending")
        }
        return nil
    }

    /// What lands while an edit's server call is held: a refresh (0), a next page (1), `publish`
    /// new server items and a refresh (2), or a trim to as few rows as a trim keeps (3), which must
    /// keep every row a pending edit shows on.
    static func land(
        _ meanwhile: Int, on feed: Feed<Post>, server: TimelineModel, publishing publish: Int, _ context: String
    ) async {
        switch meanwhile {
        case 0: await feed.refresh()
        case 1: await feed.loadNextPage()
        case 2:
            server.publish(publish)
            await feed.refresh()
        default:
            // A memory warning: the harshest trim.
            do {
                try await trimKeepingEditedRows(feed, to: 0, context)
            } catch {
                Issue.record("\(context): \(error)")
            }
        }
    }

    /// Trims the feed to `maxRows`, checking that no row a pending edit (queued, or waiting for its
    /// answer) shows on was cut.
    static func trimKeepingEditedRows(_ feed: Feed<Post>, to maxRows: Int, _ context: String) async throws {
        let edited = Set(try await feed.pendingEdits().map(\.itemID)).intersection(await feed.snapshot.ids)
        try await feed.trim(maxRows: maxRows)
        let cut = edited.subtracting(await feed.snapshot.ids)
        #expect(cut.isEmpty, "\(context): a trim cut the rows of the pending edits of \(cut)")
    }

    /// What a pending optimistic edit shows, checked while its call runs.
    enum PendingCheck: Sendable {
        /// The item shows the edit's change (a revision of 1,000 or more; the server's are smaller).
        case update(String)
        case insert(String)
        case remove(String)

        /// Checks that the feed and the file show the edit, whatever was written since it was made.
        func holds(in feed: Feed<Post>, _ test: FeedTestCase, _ context: String) async throws {
            let snapshot = await feed.snapshot
            let shown = snapshot.rows.loadedRange.compactMap { snapshot.rows[$0] }
            let onDisk = try test.postsOnDisk()
            for (posts, place) in [(shown, "the feed"), (onDisk, "the file")] {
                switch self {
                case .update(let id):
                    let revision = posts.first { $0.id == id }?.revision ?? 1_000
                    #expect(revision >= 1_000, "\(context): \(place) shows the server's \(id) under a pending edit")
                case .insert(let id):
                    #expect(posts.contains { $0.id == id }, "\(context): \(place) lost \(id), inserted and pending")
                case .remove(let id):
                    #expect(!posts.contains { $0.id == id }, "\(context): \(place) shows \(id), removed and pending")
                }
            }
        }
    }

    /// Another store (an app extension) writes the feed, then this feed reads or writes it: it must
    /// notice, and take the file's rows before anything else (the checks after the step).
    static func secondWriter(
        _ feed: Feed<Post>, _ snapshot: FeedSnapshot<Post>, test: FeedTestCase, source: ScriptedSource<Post>,
        policy: FeedPolicy, codec: ItemCodec<Post>, id: String, locals: inout Set<String>,
        removedLocally: inout Set<String>, using random: inout SplitMix64
    ) async throws {
        let other = try test.feed(source, policy: policy, codec: codec)
        let theirs = await other.snapshot
        switch Int.random(in: 0..<6, using: &random) {
        case 0: await other.refresh()
        case 1: await other.loadNextPage()
        case 2:
            try await other.insert(Post(id: id), at: Int.random(in: 0...theirs.rows.count, using: &random))
            locals.insert(id)
        case 3:
            if let edited = theirs.ids.randomElement(using: &random) {
                let section = theirs.sections.last { $0.firstRow <= row(of: edited, in: theirs) }?.key
                if Bool.random(using: &random) {
                    try await other.update(Post(id: edited, revision: 2_000, section: section))
                } else {
                    try await updateWithoutSections(
                        edited, revision: 2_000, keeping: section, test: test, policy: policy)
                }
            }
        case 4:
            if let removed = theirs.ids.randomElement(using: &random) {
                try await other.remove(id: removed)
                removedLocally.insert(removed)
            }
        default: try await other.trim(maxRows: Int.random(in: 0...20, using: &random))
        }
        await other.waitUntilIdle()
        switch Int.random(in: 0..<6, using: &random) {
        case 0: await feed.refresh()
        case 1: await feed.loadNextPage()
        case 2:
            try await feed.insert(Post(id: "\(id)-mine"), at: Int.random(in: 0...snapshot.rows.count, using: &random))
            locals.insert("\(id)-mine")
        case 3:
            // Row numbers of the feed as it was: the feed must take the file's rows first.
            if let edited = snapshot.ids.randomElement(using: &random) {
                let section = snapshot.sections.last { $0.firstRow <= row(of: edited, in: snapshot) }?.key
                try await feed.update(Post(id: edited, revision: 3_000, section: section))
            } else {
                _ = try await feed.identifiers()
            }
        case 4: try await feed.trim(maxRows: Int.random(in: 0...30, using: &random))
        default:
            if let gap = snapshot.gaps.first {
                await feed.loadGap(gap)
            } else {
                _ = try await feed.identifiers()
            }
        }
    }

    /// A store whose model has no sections (a widget's) updates a post: the row keeps its section, in
    /// its payload and in the feed.
    static func updateWithoutSections(
        _ id: String, revision: Int, keeping section: String?, test: FeedTestCase, policy: FeedPolicy
    ) async throws {
        let widget = try test.store().feed(
            "home", source: ScriptedSource<PostWithoutSection>(), policy: policy, codec: .json)
        guard try await widget.update(PostWithoutSection(id: id, revision: revision)) else { return }
        let stored = try test.postsOnDisk().first { $0.id == id }
        #expect(stored == Post(id: id, revision: revision, section: section), "a model without sections edited \(id)")
        let sections = try DatabaseQueue(path: test.path).read { store in
            try store.feed(key: "home").flatMap { try store.items(withIDs: [id], in: $0)[id]?.section }
        }
        #expect(sections == section, "a model without sections moved \(id) to section \(sections ?? "none")")
    }

    /// An extension opens the feed on a store of its own (after a feed with another policy, so the
    /// policy is encoded again): the file is not written, and this feed's next change stays exact.
    /// (Its model reads every row: one that removed rows it cannot read would write.)
    static func anotherStoreOpens(
        _ feed: Feed<Post>, _ snapshot: FeedSnapshot<Post>, policy: FeedPolicy, revision: Int,
        _ test: FeedTestCase, _ context: String
    ) async throws {
        let other = try test.store()
        let source = ScriptedSource<Post>()
        _ = try test.feed(
            source, policy: FeedPolicy(refreshOnOpen: .never, prefetchDistance: 1), key: "extension", store: other)
        _ = try test.feed(source, policy: policy, store: other)
        guard let id = snapshot.ids.last else { return }
        let section = snapshot.sections.last?.key
        guard try await feed.update(Post(id: id, revision: revision, section: section)) else { return }
        let change = await feed.snapshot.change
        #expect(!change.isFullReload, "\(context): another store's open turned this feed's change into a full reload")
    }

    /// A refresh, next page or gap fill whose caller is cancelled while its fetch is held: the caller
    /// returns at once, nothing is left loading, the late answer changes nothing, and a row appearing
    /// at the bottom then prefetches.
    static func cancelledCaller(
        _ feed: Feed<Post>, _ snapshot: FeedSnapshot<Post>, holding: Locked<Bool>, held: ScriptedSource<Post>,
        server: TimelineModel, source: ScriptedSource<Post>, using random: inout SplitMix64, _ context: String
    ) async throws {
        let record = await feed.loaded.record
        var operations: [@Sendable () async -> Void] = [{ await feed.refresh() }]
        if !record.endReached, record.oldestCursor != nil { operations.append { await feed.loadNextPage() } }
        let fillable = await feed.loaded.gaps.map(\.record).filter { !$0.unfillable && $0.cursor != nil }.map(\.id)
        if let gap = snapshot.gaps.first(where: { fillable.contains($0.id) }) {
            operations.append { await feed.loadGap(gap) }
        }
        holding.value = true
        let operation = operations[Int.random(in: 0..<operations.count, using: &random)]
        let caller = Task { await operation() }
        let fetch = await held.nextFetch()
        caller.cancel()
        await caller.value
        let after = await feed.snapshot
        #expect(after.refresh != .loading, "\(context): a cancelled refresh left its activity loading")
        #expect(after.nextPage != .loading, "\(context): a cancelled next page left its activity loading")
        #expect(!after.gaps.contains { $0.state == .loading }, "\(context): a cancelled fill left its gap loading")
        fetch.respond(server.page(for: fetch.request))
        let requests = source.requests.count
        guard after.rows.count > 0 else { return }
        await feed.rowDidAppear(after.rows.count - 1)
        await feed.waitUntilIdle()
        if after.nextPage == .idle, await !feed.loaded.record.endReached, await feed.loaded.record.oldestCursor != nil {
            #expect(source.requests.count > requests, "\(context): the row at the bottom did not prefetch")
        }
    }

    /// Every write of a second store was followed with its exact change: each writer of the model
    /// records its changes, and no sequence writes more than the change record keeps.
    static func checkFollowedExactly(_ events: EventRecorder, _ feed: Feed<Post>, _ context: String) async {
        let reloads = await events.events(settlingOn: feed).filter { $0.kind == .reloadedFromFile }
        #expect(
            reloads.isEmpty,
            "\(context): another store's write, recorded, was taken as a full reload: \(reloads.compactMap(\.reason))")
    }

    /// The checks after every step.
    static func check(
        _ recorder: SnapshotRecorder<Post>, _ feed: Feed<Post>, _ test: FeedTestCase, _ context: String
    )
        async throws
    {
        await feed.waitUntilIdle()
        let snapshots = await recorder.snapshots(settlingOn: feed)
        for (previous, next) in zip(snapshots, snapshots.dropFirst()) {
            SnapshotChangeChecks.check(from: previous, to: next, context)
            if let anchor = next.anchor, let before = anchor.rowBefore {
                // The anchor names where the row on top of the screen was and is: the app keeps it still.
                #expect(
                    next.ids.indices.contains(anchor.rowAfter) && next.ids[anchor.rowAfter] == anchor.itemID,
                    "\(context): \(anchor) names no row of a snapshot of \(next.ids.count) (change \(next.change))")
                if previous.ids.contains(anchor.itemID) {
                    #expect(previous.ids[before] == anchor.itemID, "\(context): the anchor's old row is wrong")
                }
            }
        }
        if let place = await feed.readingPosition, let row = await feed.snapshot.ids.firstIndex(of: place.itemID) {
            #expect(row == place.row, "\(context): the reader's row moved without an anchor")
        }
        let snapshot = await feed.snapshot
        #expect(snapshot.nextPage != .loading, "\(context): next page loading with nothing in flight")
        #expect(snapshot.refresh != .loading, "\(context): refresh loading with nothing in flight")
        #expect(!snapshot.gaps.contains { $0.state == .loading }, "\(context): a gap loading with nothing in flight")
        #expect(snapshot.gaps.allSatisfy { $0.afterRow >= -1 && $0.afterRow < snapshot.rows.count })
        if snapshot.rows.count == 0, snapshot.refresh == .idle, case .initialLoading = snapshot.content {
            let loaded = try test.recordOnDisk()?.loaded ?? false
            #expect(!loaded, "\(context): a feed that loaded shows a spinner with nothing running")
        }
        #expect(try test.idsOnDisk() == snapshot.ids, "\(context): the feed differs from the file")
        // The gaps shown are the file's, under the same rows: a gap only the file has hides rows no
        // fill of the app's reaches.
        let file = try DatabaseQueue(path: test.path)
        let fileGaps = try file.read { store in
            try store.feed(key: "home").map { try Feed<Post>.gaps(of: $0, in: store).map(\.afterRow) } ?? []
        }
        #expect(snapshot.gaps.map(\.afterRow) == fileGaps, "\(context): the feed's gaps differ from the file's")
        try SecondWriterChecks.rowsEqualTheFile(snapshot, test, context)
        // The identifier view a diffable data source is built from: the rows, each id and section once.
        var diffable = DiffableShape<FeedSectionID, String>()
        try #require(try await feed.identifiers(of: snapshot)).build(into: &diffable, reconfiguring: snapshot.change)
        #expect(diffable.itemIdentifiers == snapshot.ids, "\(context): the identifiers differ from the rows")
        let violations = try file.read { try $0.verify() }
        #expect(violations.isEmpty, "\(context): \(violations)")
    }
}

/// The row of `id` in a snapshot (its count when absent).
func row(of id: String, in snapshot: FeedSnapshot<Post>) -> Int {
    snapshot.ids.firstIndex(of: id) ?? snapshot.rows.count
}

/// A model of a server's timeline: newest first, by a serial each item takes when it is published or
/// bumped to the top (a post boosted again, a thread with a new message), paged either by `max_id`
/// (the cursor is the serial of a page's last item, and a deleted or bumped cursor item still marks
/// its place) or by page number (deletions then shift pages, so this mode only adds and bumps).
final class TimelineModel: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var list: [(serial: Int, post: Post)] = []
    private var nextSerial: Int
    private var deletedIDs = Set<String>()
    let pageSize: Int
    let byPageNumber: Bool
    /// Whether items carry a section key (a "day": runs of a few items, recurring keys never touch).
    let sectioned: Bool
    /// Whether the `min_id` page that reaches the newest item carries a newer cursor. Some servers
    /// give one only while there is more above, so a feed's newer cursor can lag behind its head.
    let headPageHasNewerCursor: Bool

    init(count: Int, pageSize: Int, byPageNumber: Bool, sectioned: Bool, headPageHasNewerCursor: Bool = true) {
        self.pageSize = pageSize
        self.byPageNumber = byPageNumber
        self.sectioned = sectioned
        self.headPageHasNewerCursor = headPageHasNewerCursor
        nextSerial = 1_000
        publish(count)
    }

    var items: [Post] { lock.withLock { list.map(\.post) } }
    var deleted: Set<String> { lock.withLock { deletedIDs } }

    /// `count` new items on top.
    func publish(_ count: Int) {
        lock.withLock {
            let new = (0..<count).map { offset in
                let serial = nextSerial + count - offset
                return (serial: serial, post: Post(id: "s\(serial)", section: sectioned ? "d\(serial / 4)" : nil))
            }
            nextSerial += count
            list.insert(contentsOf: new, at: 0)
        }
    }

    /// Deletes the items with `ids`.
    func delete(_ ids: Set<String>) {
        lock.withLock {
            list.removeAll { ids.contains($0.post.id) }
            deletedIDs.formUnion(ids)
        }
    }

    /// Moves one of the top 40 items (not the first) to the top, edited or not, under a new serial.
    func bump(using random: inout SplitMix64) {
        lock.withLock {
            guard list.count > 1 else { return }
            moveToTheTop(
                at: Int.random(in: 1..<min(list.count, 40), using: &random), edited: Bool.random(using: &random))
        }
    }

    /// Moves the item right above the run of `ids` (as the list holds them), the one right below
    /// it, or both, to the top, unedited, under new serials; returns their ids.
    @discardableResult
    func bumpNeighbours(of ids: [String], using random: inout SplitMix64) -> [String] {
        lock.withLock {
            let indices = ids.compactMap { id in list.firstIndex { $0.post.id == id } }
            guard let first = indices.min(), let last = indices.max() else { return [] }
            let above = first > 0 ? list[first - 1].post.id : nil
            let below = last + 1 < list.count ? list[last + 1].post.id : nil
            let chosen: [String?] =
                switch Int.random(in: 0..<3, using: &random) {
                case 0: [above]
                case 1: [below]
                default: Bool.random(using: &random) ? [above, below] : [below, above]
                }
            let bumped = chosen.compactMap { $0 }
            for id in bumped {
                if let index = list.firstIndex(where: { $0.post.id == id }) { moveToTheTop(at: index, edited: false) }
            }
            return bumped
        }
    }

    /// Moves the item `id` to the top, unedited, under a new serial.
    func bump(_ id: String) {
        lock.withLock {
            if let index = list.firstIndex(where: { $0.post.id == id }) { moveToTheTop(at: index, edited: false) }
        }
    }

    /// Call with `lock` held.
    private func moveToTheTop(at index: Int, edited: Bool) {
        var entry = list.remove(at: index)
        nextSerial += 1
        entry.serial = nextSerial
        if edited { entry.post.revision += 1 }
        list.insert(entry, at: 0)
    }

    /// Edits an item, or (paging by cursor) deletes one to three, among the top 40.
    func editOrDelete(using random: inout SplitMix64) {
        lock.withLock {
            guard !list.isEmpty else { return }
            if !byPageNumber, Bool.random(using: &random) {
                for _ in 0..<Int.random(in: 1...3, using: &random) where !list.isEmpty {
                    let index = Int.random(in: 0..<min(list.count, 40), using: &random)
                    deletedIDs.insert(list.remove(at: index).post.id)
                }
            } else {
                list[Int.random(in: 0..<min(list.count, 40), using: &random)].post.revision += 1
            }
        }
    }

    func page(for request: PageRequest) -> Page<Post> {
        lock.withLock {
            let start: Int
            switch request {
            case .newerThan(let cursor) where !byPageNumber:
                // Mastodon's min_id: the page right above the cursor's place, and a way further up.
                let serial = Int(cursor.dropFirst()) ?? 0
                let end = list.firstIndex { $0.serial <= serial } ?? list.count
                let entries = list[max(end - pageSize, 0)..<end]
                let reachesHead = end <= pageSize
                return Page(
                    items: entries.map(\.post), olderCursor: entries.last.map { "s\($0.serial)" },
                    newerCursor: reachesHead && !headPageHasNewerCursor ? nil : entries.first.map { "s\($0.serial)" })
            case .first, .newerThan: start = 0
            case .olderThan(let cursor):
                if byPageNumber {
                    start = min(((Int(cursor) ?? 1) - 1) * pageSize, list.count)
                } else {
                    let serial = Int(cursor.dropFirst()) ?? 0
                    start = list.firstIndex { $0.serial < serial } ?? list.count
                }
            }
            let end = min(start + pageSize, list.count)
            let entries = list[start..<end]
            let older: String? =
                end < list.count ? (byPageNumber ? "\(end / pageSize + 1)" : entries.last.map { "s\($0.serial)" }) : nil
            let newer = byPageNumber ? nil : entries.first.map { "s\($0.serial)" }
            return Page(items: entries.map(\.post), olderCursor: older, newerCursor: newer)
        }
    }
}

/// Item ids a codec refuses to decode, as the app's next model would refuse rows of the last one.
final class RefusedIDs: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var refused = Set<String>()
    struct Refused: Error {}

    func insert(_ id: String) { lock.withLock { _ = refused.insert(id) } }
    var ids: Set<String> { lock.withLock { refused } }

    /// JSON, but for the refused ids.
    var codec: ItemCodec<Post> {
        let json = ItemCodec<Post>.json
        return ItemCodec(storesText: true, encode: json.encode) { [self] data in
            let item = try json.decode(data)
            if ids.contains(item.id) { throw Refused() }
            return item
        }
    }
}
