import ArgumentParser
import Foundation
import PagedStore

extension PagedDB {
    struct Trim: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Trim a feed's oldest pages, to a row count or an age.",
            discussion: """
                Whole pages are removed from the bottom, and the feed's older cursor moves with them, so \
                pagination resumes right below the rows that remain. The pages holding rows that pending \
                edits show on stay (`pagedb show` lists the edits): the user's edit keeps its row.

                Examples:
                  pagedb trim home --db cache.sqlite --max-rows 500
                  pagedb trim home --db cache.sqlite --older-than 7d
                """)

        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The feed's key.") var feed: String
        @Option(name: .long, help: "Keep at most this many rows.") var maxRows: Int?
        @Option(
            name: .long,
            help: ArgumentHelp("Remove pages fetched longer ago: 90s, 30m, 12h, 7d.", valueName: "duration"))
        var olderThan: AgeOption?

        func validate() throws {
            guard (maxRows == nil) != (olderThan == nil) else {
                throw ValidationError("Give exactly one of --max-rows and --older-than.")
            }
            if let maxRows, maxRows < 0 { throw ValidationError("--max-rows must be 0 or more.") }
        }

        func run() async throws {
            let queue = try database.openForChanging(feed: feed)
            let (removed, keptForEdits) = try queue.write { store -> (Int, String?) in
                guard var record = try store.feed(key: feed) else { throw CommandFailure.unknownFeed(feed) }
                // Open lists (an app running beside pagedb) follow the cut with its exact change.
                let removed = try store.recordingRowsChangedAtTheBottom(of: feed) {
                    if let maxRows { return try Trimmer.trim(&record, maxRows: maxRows, in: store) }
                    guard let olderThan else { return 0 }  // validate() made sure one of the two is given
                    return try Trimmer.trim(&record, fetchedBefore: Date() - olderThan.seconds, in: store)
                }
                guard let maxRows, record.rowCount > maxRows,
                    let row = try store.deepestPendingEditRow(in: record), row >= maxRows
                else { return (removed, nil) }
                return (
                    removed, "kept \(record.rowCount) rows: a pending edit shows on row \(row) (pagedb show lists it)"
                )
            }
            print("Removed \(removed) rows from \(Terminal.escape(feed))\(keptForEdits.map { "; \($0)" } ?? "").")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a feed with its pages, rows and gaps.",
            discussion: """
                A feed that holds pending edits is the user's intent: queued edits not yet sent \
                (`pagedb outbox` lists them) and edits an app is saving to its server right now \
                (`pagedb show` lists them). It is not deleted (exit status 7) unless \
                --drop-pending-edits says to drop them too; each queued edit is then kept in the \
                outbox's history (`pagedb outbox --dropped`), and the output counts both kinds.

                Examples:
                  pagedb delete "search?q=swift" --db cache.sqlite
                  pagedb delete home --db cache.sqlite --drop-pending-edits
                """)

        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The feed's key.") var feed: String
        @Flag(
            name: [.customLong("drop-pending-edits"), .customLong("drop-queued-edits")],
            help: "Delete the feed even when it holds pending edits, dropping them unsent.")
        var dropPendingEdits = false

        func run() async throws {
            let queue = try database.openForChanging(feed: feed)
            let deleted = try FeedDeletion.delete(
                feed, in: queue, reason: "dropped with its feed by pagedb delete --drop-pending-edits"
            ) { holding in
                guard holding.queued > 0 || holding.saving > 0, !dropPendingEdits else { return }
                let kinds = [
                    holding.queued == 0
                        ? nil : "\(Self.edits(holding.queued, "queued")) not yet sent (pagedb outbox lists them)",
                    holding.saving == 0
                        ? nil : "\(Self.edits(holding.saving)) an app is saving (pagedb show lists them)",
                ]
                throw CommandFailure(
                    status: .queuedEditsKept,
                    message:
                        "\(Terminal.escape(feed)) holds \(kinds.compactMap { $0 }.joined(separator: " and ")); "
                        + "nothing was deleted. --drop-pending-edits deletes the feed and drops them")
            }
            guard let deleted else { throw CommandFailure.unknownFeed(feed) }
            let (record, dropped, saving) = (deleted.record, deleted.queued, deleted.saving)
            let edits = [
                dropped == 0 ? nil : "\(Self.edits(dropped, "queued")) dropped unsent",
                saving == 0 ? nil : "\(Self.edits(saving)) an app was saving dropped",
            ]
            let parts = ["\(record.rowCount) rows"] + edits.compactMap { $0 }
            print("Deleted \(Terminal.escape(feed)) (\(parts.joined(separator: "; "))).")
        }

        /// "1 queued edit", "2 edits".
        private static func edits(_ count: Int, _ kind: String? = nil) -> String {
            ([String(count)] + (kind.map { [$0] } ?? []) + [count == 1 ? "edit" : "edits"]).joined(separator: " ")
        }
    }
}
