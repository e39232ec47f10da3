import ArgumentParser
import Foundation
import PagedStore

extension PagedDB {
    struct Outbox: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the edits a cache holds for its server: each queued edit's feed, item, kind and state.",
            discussion: """
                An app queues an edit by kind (Feed.enqueue) when it must reach the server even after a \
                relaunch; its store's outbox sends it, retries it, and settles it. This lists every such \
                edit still waiting, oldest first: the feed and item it changed, what it does to the row \
                (update, insert or remove), the kind whose handler sends it, its idempotency key, how \
                many sends failed, what the last one said, and when it is next tried: after a failed send a \
                store waits (the server's Retry-After, or a backoff) and keeps the time in the file, so a \
                relaunch waits too ("in 5 min"; "due" once that time has passed; "at once" when no send \
                failed). An item's edits go one at a time, in order: a later one is tried "after the edit \
                before it". Edits whose server call is a closure are not listed (see `pagedb show`). Opens \
                the file read-only: it is never created or changed.

                Examples:
                  pagedb outbox --db app-cache.sqlite
                  pagedb outbox --db app-cache.sqlite --json | jq '.[] | select(.attempts > 3)'
                """)

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let queue = try database.openForReading()
            let edits = try queue.read { store in try store.queuedEdits() }
            let waitsFor = EditOrder.waitsFor(edits, item: { "\($0.feedKey)\u{0}\($0.itemID)" }) {
                $0.queued.idempotencyKey
            }
            if output.json {
                try Terminal.printJSON(zip(edits, waitsFor).map(QueuedEditJSON.init))
                return
            }
            guard !edits.isEmpty else { return print("No queued edits in this cache.") }
            print(
                Terminal.table(
                    ["FEED", "ITEM", "CHANGE", "KIND", "KEY", "FAILED SENDS", "NEXT TRY", "QUEUED", "LAST ERROR"],
                    zip(edits, waitsFor).map { edit, before in
                        [
                            output.cell(edit.feedKey, 24), output.cell(edit.itemID, 24), edit.change.rawValue,
                            output.cell(edit.queued.kind, 24), edit.queued.idempotencyKey.uuidString,
                            "\(edit.queued.attempts)",
                            EditOrder.nextTry(waitingFor: before, nextAttemptAt: edit.queued.nextAttemptAt),
                            Terminal.age(edit.createdAt),
                            output.cell(edit.queued.lastError, 40),
                        ]
                    }))
            print("\(edits.count) queued \(edits.count == 1 ? "edit" : "edits").")
        }
    }
}

/// `outbox --json`: one queued edit.
struct QueuedEditJSON: Encodable {
    let feed: String
    let itemID: String
    let change: String
    let kind: String
    let argument: JSONValue
    let idempotencyKey: String
    let attempts: Int
    @Nullable var lastError: String?
    /// The earliest time of the next send after a failed one; null when none failed.
    @Nullable var nextAttemptAt: String?
    @Nullable var createdAt: String?
    /// The idempotency key of the edit of the same item it waits for; null for an item's first.
    @Nullable var waitsFor: String?

    init(_ edit: QueuedEditRow, waitingFor before: UUID?) {
        feed = edit.feedKey
        itemID = edit.itemID
        change = edit.change.rawValue
        kind = edit.queued.kind
        argument = JSONValue(payload: edit.queued.argument)
        idempotencyKey = edit.queued.idempotencyKey.uuidString
        attempts = edit.queued.attempts
        lastError = edit.queued.lastError
        nextAttemptAt = Terminal.timestamp(edit.queued.nextAttemptAt)
        createdAt = Terminal.timestamp(edit.createdAt)
        waitsFor = before?.uuidString
    }
}
