import ArgumentParser
import Foundation
import PagedStore
import PagedStoreFixtures
import PagedStoreTesting

extension PagedDB {
    struct Apply: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the feed engine on a captured server response and print the change.",
            discussion: """
                The page file is a server response in the page format: {"items": [...], "next_cursor": ..., \
                "previous_cursor": ...}. As a refresh it is merged on top of the cached rows; as next it is \
                appended below them. Prints the inserted, reloaded, deleted and moved index paths as \
                [section, row], whether a gap was created, the cursors before and after, and the state. \
                --dry-run works on a copy of the cache and leaves the file untouched. --page - reads the \
                response from standard input; a pipe or FIFO given as a path is read as a stream too.

                Examples:
                  pagedb apply home --db cache.sqlite --page captured.json --as refresh --dry-run
                  curl -s "$API_URL" | pagedb apply home --db cache.sqlite --page - --as refresh
                """)

        enum Kind: String, ExpressibleByArgument, CaseIterable {
            case refresh, next
        }

        enum GapPolicyOption: String, ExpressibleByArgument, CaseIterable {
            case replace, keepGap

            /// The engine's policy.
            var policy: FeedPolicy.GapPolicy {
                switch self {
                case .replace: .replace
                case .keepGap: .keepGap
                }
            }
        }

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The feed's key.") var feed: String
        @Option(name: .long, help: ArgumentHelp("The captured response; - for standard input.", valueName: "path"))
        var page: String
        @Option(name: .customLong("as"), help: "refresh (newest page, merged on top) or next (appended).") var kind:
            Kind
        @Flag(name: .long, help: "Compute the change on a copy; write nothing.") var dryRun = false
        @Option(name: .long, help: "replace or keepGap; default: the feed's recorded policy.") var gapPolicy:
            GapPolicyOption?
        @Option(name: .long, help: "The key holding each item's id.") var idKey = "id"
        // For tests that must keep every write's change: open lists of a long run follow exactly.
        @Option(name: .long, help: ArgumentHelp("How many writes the change record keeps.", visibility: .hidden))
        var changeRecordLimit = 1000

        func run() async throws {
            let input = try FixtureInput(page)
            defer { input.remove() }
            let response = try input.namingErrors {
                try FixtureReader(idKey: idKey, format: .page).read(contentsOf: input.path).pages
            }
            let fixture = response.first ?? FixturePage(items: [], olderCursor: nil, newerCursor: nil)
            let path = try database.path()
            // A next page needs the feed: checked before anything is created or migrated.
            let reader =
                try dryRun
                ? database.openForReading()
                : kind == .next ? database.openForChanging(feed: feed) : database.openForWriting()
            let before = try reader.read { try $0.feed(key: feed) }
            if before == nil, kind == .next { throw CommandFailure.unknownFeed(feed) }
            if kind == .next, before?.endReached == true {
                throw CommandFailure(
                    status: .nothingApplied,
                    message:
                        "Nothing applied: \(Terminal.escape(feed).debugDescription) has ended (its last page said "
                        + "there is no more). Apply the page --as refresh, or trim the feed first")
            }

            var target = path
            var scratch: TemporaryFolder?
            if dryRun {
                let copy = try TemporaryFolder()
                target = copy.path("dry-run.sqlite")
                try reader.withoutTransaction { try $0.copy(to: target) }
                scratch = copy
            }
            defer { scratch?.remove() }

            let source = ScriptedSource<JSONItem> { _ in
                Page(
                    items: fixture.items.map(JSONItem.init), olderCursor: fixture.olderCursor,
                    newerCursor: fixture.newerCursor)
            }
            // As the app's feed: its copies spread, its index kept, its rows and limits as its policy says.
            let engine = try FeedStore(path: target, changeRecordLimit: changeRecordLimit).feedAsRecorded(
                feed, source: source, codec: JSONItem.codec(idKey: idKey)
            ) { policy in
                policy.refreshOnOpen = .never
                if let gapPolicy { policy.gapPolicy = gapPolicy.policy }
            }
            let gapsBefore = await engine.snapshot.gaps.count
            switch kind {
            case .refresh: await engine.refresh()
            case .next: await engine.loadNextPage()
            }
            let snapshot = await engine.snapshot
            // The cache failing says so with its own status; anything else is the page's fault.
            if case .failed(let error) = snapshot.refresh { throw CommandFailure.feed(error, sourceStatus: .badInput) }
            if case .failed(let error) = snapshot.nextPage {
                throw CommandFailure.feed(error, sourceStatus: .badInput)
            }
            let after = try DatabaseQueue(path: target).read { try $0.feed(key: feed) }
            try report(snapshot, gapCreated: snapshot.gaps.count > gapsBefore, before: before, after: after)
        }

        private func report(
            _ snapshot: FeedSnapshot<JSONItem>, gapCreated: Bool, before: FeedRecord?, after: FeedRecord?
        )
            throws
        {
            if output.json {
                return try Terminal.printJSON(
                    ApplyJSON(
                        snapshot.change, gapCreated: gapCreated, dryRun: dryRun, rows: snapshot.rows.count,
                        state: .init(
                            content: ChangeReport.name(snapshot.content), refresh: ChangeReport.name(snapshot.refresh),
                            nextPage: ChangeReport.name(snapshot.nextPage)),
                        cursors: .init(
                            newestBefore: before?.newestCursor, newestAfter: after?.newestCursor,
                            oldestBefore: before?.oldestCursor, oldestAfter: after?.oldestCursor)))
            }
            print("\(dryRun ? "Dry run of" : "Applied") \(kind.rawValue) page on \(Terminal.escape(feed)):")
            let lines = ChangeReport.lines(snapshot.change)
            for line in lines.isEmpty ? ["no change in the rows"] : lines { print("  \(line)") }
            print("  gap created: \(gapCreated ? "yes" : "no")")
            print(
                "  newest cursor: \(Terminal.short(before?.newestCursor, 30)) -> \(Terminal.short(after?.newestCursor, 30))"
            )
            print(
                "  oldest cursor: \(Terminal.short(before?.oldestCursor, 30)) -> \(Terminal.short(after?.oldestCursor, 30))"
            )
            print("  state: \(ChangeReport.states(snapshot)), \(snapshot.rows.count) rows")
        }
    }
}
