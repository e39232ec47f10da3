import ArgumentParser
import Foundation
import PagedStore

extension PagedDB {
    struct Trim: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Trim a feed's oldest pages, to a row count or an age.",
            discussion: """
                Whole pages are removed from the bottom, and the feed's older cursor moves with them, so \
                pagination resumes right below the rows that remain.

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
            let removed = try queue.write { store -> Int in
                guard var record = try store.feed(key: feed) else { throw CommandFailure.unknownFeed(feed) }
                // Open lists (an app running beside pagedb) follow the cut with its exact change.
                return try store.recordingRowsChangedAtTheBottom(of: feed) {
                    if let maxRows { return try Trimmer.trim(&record, maxRows: maxRows, in: store) }
                    guard let olderThan else { return 0 }  // validate() made sure one of the two is given
                    return try Trimmer.trim(&record, fetchedBefore: Date() - olderThan.seconds, in: store)
                }
            }
            print("Removed \(removed) rows from \(Terminal.escape(feed)).")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a feed with its pages, rows and gaps.",
            discussion: """
                A feed that holds queued edits not yet sent (`pagedb outbox` lists them) is the user's \
                intent for the server: it is not deleted (exit status 7) unless --drop-queued-edits says \
                to drop them too, and then each is kept in the outbox's history \
                (`pagedb outbox --dropped`).

                Examples:
                  pagedb delete "search?q=swift" --db cache.sqlite
                  pagedb delete home --db cache.sqlite --drop-queued-edits
                """)

        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The feed's key.") var feed: String
        @Flag(help: "Delete the feed even when it holds queued edits not yet sent, dropping them unsent.")
        var dropQueuedEdits = false

        func run() async throws {
            let queue = try database.openForChanging(feed: feed)
            let (record, dropped) = try queue.write { store -> (FeedRecord, Int) in
                guard let record = try store.feed(key: feed) else { throw CommandFailure.unknownFeed(feed) }
                let queued = try store.queuedEdits().filter { $0.feedKey == feed }
                if !queued.isEmpty, !dropQueuedEdits {
                    throw CommandFailure(
                        status: .queuedEditsKept,
                        message: "\(Terminal.escape(feed)) holds \(queued.count) queued "
                            + "\(queued.count == 1 ? "edit" : "edits") not yet sent (pagedb outbox lists them); "
                            + "nothing was deleted. --drop-queued-edits deletes the feed and drops them")
                }
                for edit in queued {
                    try store.recordDroppedQueuedEdit(
                        DroppedQueuedEdit(
                            feedKey: feed, itemID: edit.itemID, kind: edit.queued.kind,
                            argument: String(decoding: edit.queued.argument, as: UTF8.self),
                            idempotencyKey: edit.queued.idempotencyKey.uuidString,
                            reason: "dropped with its feed by pagedb delete --drop-queued-edits", droppedAt: Date()))
                }
                // Rows no edit can be read from go too, kept in the history as a feed keeps them.
                for (key, edit) in try store.unreadableQueuedEdits() where key == feed && edit.outboxKind != nil {
                    try store.recordDroppedQueuedEdit(
                        DroppedQueuedEdit(
                            feedKey: feed, itemID: edit.itemID, kind: edit.outboxKind, argument: edit.argument,
                            idempotencyKey: edit.idempotencyKey,
                            reason: "dropped with its feed by pagedb delete: it is \(edit.problem)", droppedAt: Date()))
                }
                try store.deleteFeed(record)
                return (record, queued.count)
            }
            let edits = dropped == 0 ? "" : "; \(dropped) queued \(dropped == 1 ? "edit" : "edits") dropped unsent"
            print("Deleted \(Terminal.escape(feed)) (\(record.rowCount) rows\(edits)).")
        }
    }
}
