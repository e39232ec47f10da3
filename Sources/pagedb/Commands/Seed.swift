import ArgumentParser
import Foundation
import PagedStore
import PagedStoreFixtures

extension PagedDB {
    struct Seed: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Seed a feed from a fixture file or from generated items.",
            discussion: """
                A fixture is a JSON array of items, NDJSON (one item per line), or a JSON array of page \
                objects ({"items": [...], "next_cursor": ..., "previous_cursor": ...}). Items are objects \
                with an id (a string or an integer). All or nothing: a bad line stops with file:line:column \
                and a reason, and nothing is written. Items are added below the feed's rows; ids it already \
                has are skipped. Item lists are split into pages of --page-size and end the feed. \
                --file - reads standard input, and a pipe or FIFO given as a path is read as the stream it \
                is: copied once to a private temporary file, in bounded memory, then read as a file.

                Examples:
                  pagedb seed home --db cache.sqlite --file fixtures/home.json
                  pagedb seed home --db cache.sqlite --generate 100000 --seed 7
                  curl -s "$FIXTURE_URL" | pagedb seed home --db cache.sqlite --file -
                """)

        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The feed's key (created when missing).") var feed: String
        @Option(name: .long, help: ArgumentHelp("A fixture file to read; - for standard input.", valueName: "path"))
        var file: String?
        @Option(name: .long, help: "Generate this many deterministic synthetic items.") var generate: Int?
        @Option(name: .long, help: "The seed of the generated items.") var seed: UInt64 = 1
        @Option(name: .long, help: "Items per page when splitting an item list.") var pageSize = 50
        @Option(name: .long, help: "The key holding each item's id.") var idKey = "id"
        @Option(name: .long, help: "The key holding each item's section, if the feed has sections.") var sectionKey:
            String?
        @Option(
            name: .long,
            help: """
                The fixture's shape: json (an array of items), ndjson, pages (an array of page objects) or page. \
                Default: told from the whole file (an array is pages only if every element has an items array \
                and a cursor key).
                """)
        var format: FixtureFormatOption?

        func validate() throws {
            guard (file == nil) != (generate == nil) else {
                throw ValidationError("Give exactly one of --file and --generate.")
            }
            guard pageSize > 0 else { throw ValidationError("--page-size must be at least 1.") }
            if let generate, generate < 0 { throw ValidationError("--generate must be 0 or more.") }
        }

        func run() async throws {
            // Before anything opens SQLite: its allocation counters take a lock on every allocation.
            SQLiteLibrary.turnOffMemoryStatistics()
            let path = try database.path()
            let queue: DatabaseQueue
            let progress: Progress
            let written: Int
            let total: Int
            if let file {
                // Two passes over the file, each in constant memory: the first checks every item (a
                // bad fixture opens nothing and writes nothing), the second writes it in one transaction.
                // A repeated id is found by the second, when its row is already there from an earlier
                // line (or an earlier line with it was skipped as already in the feed): the transaction
                // then rolls back. (Checking every id in the first pass kept them all in an on-disk
                // index, a fifth of the seed's time; now only ids the feed had before are kept.)
                // Standard input or a pipe is copied once to a private file that both passes map.
                let input = try FixtureInput(file)
                defer { input.remove() }
                let reader = FixtureReader(idKey: idKey, sectionKey: sectionKey, format: format?.format)
                total = try input.namingErrors { try reader.count(contentsOf: input.path) }
                queue = try DatabaseQueue(path: path)
                progress = Progress("seeding \(Terminal.escape(feed)):", total: total)
                // Item lists are split into pages of --page-size; page objects keep their own.
                // Many items into an empty feed are staged and written in id order at the end (see
                // PageStore.BulkSeed); a repeated id is then found by that last step.
                // A bulk seed into a file without items (a new cache) writes its pages once, with a
                // rollback journal instead of the log (see DatabaseQueue.writeFillingEmptyFile).
                // Open lists (an app running beside pagedb) follow the rows appended with their exact change.
                // A feed that shares its items spreads each page's copies to the other feeds holding
                // them before the next page, so it takes no bulk path (which writes its rows at the end).
                let seedAll = { (store: PageStore) throws -> Int in
                    try store.recordingRowsChangedAtTheBottom(of: feed) {
                        let shares = try store.feed(key: feed)?.sharedType != nil
                        var run = try store.beginSeed(into: feed, expectedItems: shares ? nil : total)
                        var written = 0
                        try reader.stream(
                            contentsOf: input.path, pageSize: pageSize, checkingDuplicates: false,
                            { page, offsets in
                                let skipped = try store.seed(page, offsets: offsets, &run)
                                try store.spreadSharedCopies(run.lastPageWrote, from: feed)
                                for index in skipped {
                                    let id = page.items[index].id
                                    guard try store.isRepeat(id, at: offsets[index], in: &run) else { continue }
                                    throw FixtureProblem(
                                        offset: offsets[index],
                                        reason: "duplicate id \(id.debugDescription) (on an earlier line)")
                                }
                                progress.update(run.written)
                            },
                            finish: {
                                // The staged rows are written now, in one step with no count of its own.
                                if run.isBulk {
                                    progress.phase("\(run.written) items read; writing them in id order")
                                }
                                written = try store.finishSeed(&run)
                            })
                        return written
                    }
                }
                written = try input.namingErrors {
                    total >= PageStore.bulkSeedMinimum
                        ? try queue.writeFillingEmptyFile(seedAll) : try queue.write(seedAll)
                }
            } else {
                total = generate ?? 0
                // Canonical payloads (sorted keys), as a fixture's: generate → export → seed → export is
                // then byte-stable. The generator's own bytes are the benchmark's and stay as they are.
                let pages = SyntheticItems(seed: seed).pages(0..<total, pageSize: pageSize).lazy.map(
                    FixtureFile.canonical)
                queue = try DatabaseQueue(path: path)
                progress = Progress("seeding \(Terminal.escape(feed)):", total: total)
                written = try queue.write { store in
                    try store.recordingRowsChangedAtTheBottom(of: feed) {
                        var run = try store.beginSeed(into: feed)
                        for page in pages {
                            try store.seed(page, &run)
                            try store.spreadSharedCopies(run.lastPageWrote, from: feed)
                            progress.update(run.written)
                        }
                        return try store.finishSeed(&run)
                    }
                }
            }
            progress.finish()
            let skipped = total - written
            print(
                "Seeded \(written) items into \(Terminal.escape(feed))\(skipped > 0 ? " (\(skipped) already there)" : "")."
            )
        }
    }
}
