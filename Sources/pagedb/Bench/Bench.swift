import ArgumentParser
import Foundation
import PagedStore
import PagedStoreFixtures

extension PagedDB {
    struct Bench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the shared pagination-cache workload through PagedStore's own code.",
            discussion: """
                Runs the pagination-cache workloads (W1 append via the engine's next page, W2 bulk seed via \
                the seed path, W3 first screen cold and warm, W4 keyset deep page, W5 refresh merge via the \
                engine) and prints one line per measurement in the workload's format, which the C \
                reference's compare script reads. Build with -c release for real figures. Also measures the decoded \
                first screen (FS), the same with 20 realistic ~3 KB timeline posts (FS-real), W5 on a \
                100-row feed (W5small), and with --scroll, a feed scrolled top to bottom through rowDidAppear.

                LIVE (only when named) times how soon an open list shows another writer's commit: 1,000 \
                paced inserts (with idle pauses of 300 to 550 ms), each timed from the start of its write to the observing feed's snapshot \
                that shows it (p50 and p99; goals p99 ≤ 5 ms in one process, ≤ 50 ms across processes), \
                with two feeds on one store, two stores on one file, and another process \
                (this pagedb, started again to write); then the CPU a store with 10 open feeds uses in 5 s without \
                writes, with their snapshots observed and without.

                BUDGET (only when named): 1,000 feeds of 200 posts under a 20 MB budget, then 10,000 random \
                refreshes, next pages and edits: the file's largest size after a write and its final size \
                on disk against the budget, and opening the store and a feed against a store of 10 feeds.

                EDIT (only when named): 1,000 edits of a 300-row feed, each timed from its call \
                (enqueue, then edit(id:_:commit:)) to the observed snapshot that shows it (p50 and p99; \
                goal p99 under 8 ms); then 1,000 optimistic edits of posts shared by five observed feeds, \
                each timed until all five lists show it.

                W1S (only when named): W1 with posts shared across feeds (FeedItem.sharedItemType), for \
                what sharing costs a write; then W1 and W1S with ids in the order the server made \
                them (W1-ordered-ids, W1S-ordered-ids), where the workload's ids are random.

                SCALE (only when named): one operation at several sizes of what surrounds it, each row \
                ending with growth= (the largest size's median over the smallest's): one update of a \
                200-row feed until 1, 10 and 100 observed lists of it show it; settling the first \
                of 1, 10, 100 and 500 queued edits stacked on one item, and the only edit of one item \
                while 0, 100 and 1,000 other items have one each; W5's merge on feeds of 1,000, 100,000 \
                and 1,000,000 rows; a shared copy placed 10, 10,000 and 100,000 rows deep; the first \
                screen of a launch among 10, 1,000 and 10,000 feeds; a write followed while 0 or 50 \
                lists of other feeds are observed.

                SEARCH (only when named): a searchable feed of --search-posts posts (1,000,000 by default) \
                seeded and indexed; the first screen (50 results) of one-word queries that match about 1% \
                of posts and of three-letter prefixes, through the engine and as the same FTS5 query run \
                directly (over_fts5= the ratio of medians); the index's size against the payloads'; W1 \
                with a searchable type against W1 without.

                Examples:
                  swift build -c release && .build/release/pagedb bench --dir /tmp/pcbench/pagedstore
                  REFERENCE/compare --runs 5 -- .build/release/pagedb bench
                  .build/release/pagedb bench --only SCROLL --scroll 1000000
                  .build/release/pagedb bench --only LIVE
                  .build/release/pagedb bench --only BUDGET
                  .build/release/pagedb bench --only EDIT
                  .build/release/pagedb bench --only SCALE
                  .build/release/pagedb bench --only W1,W1S
                  .build/release/pagedb bench --only SEARCH --search-posts 100000
                """)

        @Option(name: .long, help: ArgumentHelp("The folder for the benchmark's files.", valueName: "path"))
        var dir = "/tmp/pcbench/pagedstore"
        @Option(name: .long, help: "The data generator's seed.") var seed: UInt64 = 1
        @Option(
            name: .long,
            help: ArgumentHelp(
                "Workloads to run, comma-separated: W1,W1S,W2,W3,W3w,W4,W5,FS,FS-real,SCROLL,LIVE,BUDGET,EDIT,SCALE,SEARCH. "
                    + "W4 and W5 run W1 first, W3 and W3w run W2 first: they read the file it writes.")
        )
        var only = "W1,W2,W3,W3w,W4,W5,FS,FS-real"
        @Option(name: .long, help: "Rows of the scroll feed; runs SCROLL.") var scroll: Int?
        @Option(name: .long, help: "Posts of SEARCH's cache.") var searchPosts = 1_000_000
        /// LIVE's writer in another process: the benchmark starts this same binary with `--live-writer PATH`,
        /// which makes LIVE's paced commits to that file and exits. Internal, hidden from every help.
        @Option(name: .long, help: ArgumentHelp(visibility: .private)) var liveWriter: String?

        func validate() throws {
            let known: Set = [
                "W1", "W1S", "W2", "W3", "W3W", "W4", "W5", "FS", "FS-REAL", "SCROLL", "LIVE", "BUDGET", "EDIT",
                "SCALE", "SEARCH", "J",
                "D",
            ]
            for name in only.split(separator: ",") where !known.contains(name.uppercased()) {
                throw ValidationError(
                    "Unknown workload \(name); choose from W1,W1S,W2,W3,W3w,W4,W5,FS,FS-real,SCROLL,LIVE,BUDGET,EDIT,SCALE,SEARCH."
                )
            }
            if let scroll, scroll < 1 { throw ValidationError("--scroll needs at least 1 row.") }
            if searchPosts < 1 { throw ValidationError("--search-posts needs at least 1 post.") }
        }

        func run() async throws {
            if let liveWriter { return try await BenchWorkloads.writeLive(to: liveWriter) }
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            var selected = Set(only.uppercased().split(separator: ",").map(String.init))
            // W4 and W5 read the feed W1 writes, W3 and W3w the feeds W2 seeds: their writer runs first.
            if !selected.isDisjoint(with: ["W4", "W5"]) { selected.insert("W1") }
            if !selected.isDisjoint(with: ["W3", "W3W"]) { selected.insert("W2") }
            let workloads = BenchWorkloads(dir: dir, items: SyntheticItems(seed: seed))
            print("INFO impl=pagedstore sqlite=\(PagedStoreVersion.sqliteVersion) seed=\(seed) dir=\(dir)")
            if selected.contains("W1") { try await workloads.appendViaNextPage() }
            if selected.contains("W1S") { try await workloads.appendSharedViaNextPage() }
            if selected.contains("W2") { try workloads.bulkSeed() }
            if selected.contains("W3") { try workloads.firstScreenCold() }
            if selected.contains("W3") || selected.contains("W3W") { try workloads.firstScreenWarm() }
            if selected.contains("W4") { try workloads.keysetDeepPage() }
            if selected.contains("W5") { try await workloads.refreshMerge() }
            if selected.contains("FS") { try await workloads.decodedFirstScreen() }
            if selected.contains("FS-REAL") { try await workloads.realFirstScreen() }
            if selected.contains("SCROLL") || scroll != nil {
                try await workloads.scroll(rows: scroll ?? 1_000_000)
            }
            if selected.contains("LIVE") { try await workloads.live() }
            if selected.contains("BUDGET") { try await workloads.budget() }
            if selected.contains("EDIT") { try await workloads.edits() }
            if selected.contains("SCALE") { try await workloads.scale() }
            if selected.contains("SEARCH") { try await workloads.search(posts: searchPosts) }
        }
    }
}
