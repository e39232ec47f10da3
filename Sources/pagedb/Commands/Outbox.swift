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
                before it". An edit whose row left under it (a new cache version of the app's model, a row \
                that no longer decodes) is still sent, and says "row gone". Edits whose server call is a \
                closure are not listed (see `pagedb show`).

                A queued row the outbox cannot read (a file edited by hand) is named below the list: a \
                feed drops it when it next writes, and `pagedb verify` reports it. Edits dropped unsent \
                are kept in the outbox's history, which --dropped lists, newest first. Opens the file \
                read-only: it is never created or changed.

                Examples:
                  pagedb outbox --db app-cache.sqlite
                  pagedb outbox --db app-cache.sqlite --json | jq '.[] | select(.attempts > 3)'
                  pagedb outbox --db app-cache.sqlite --dropped
                """)

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var output: OutputOptions
        @Flag(help: "List the queued edits dropped unsent (the history of drops), newest first.")
        var dropped = false

        func run() async throws {
            let queue = try database.openForReading()
            if dropped { return try listDropped(queue) }
            let (edits, unreadable) = try queue.read { store in
                (try store.queuedEdits(), try store.unreadableQueuedEdits())
            }
            let waitsFor = EditOrder.waitsFor(edits, item: { "\($0.feedKey)\u{0}\($0.itemID)" }) {
                $0.queued.idempotencyKey
            }
            if output.json {
                try Terminal.printJSON(zip(edits, waitsFor).map(QueuedEditJSON.init))
                Self.warn(unreadable, to: .standardError)
                return
            }
            guard !edits.isEmpty || !unreadable.isEmpty else { return print("No queued edits in this cache.") }
            defer { Self.warn(unreadable, to: .standardOutput) }
            guard !edits.isEmpty else { return print("No queued edits this version can read.") }
            print(
                Terminal.table(
                    ["FEED", "ITEM", "CHANGE", "KIND", "KEY", "FAILED SENDS", "NEXT TRY", "QUEUED", "LAST ERROR"],
                    zip(edits, waitsFor).map { edit, before in
                        [
                            output.cell(edit.feedKey, 24), output.cell(edit.itemID, 24),
                            edit.change.rawValue + (edit.detached ? ", row gone" : ""),
                            output.cell(edit.queued.kind, 24), edit.queued.idempotencyKey.uuidString,
                            "\(edit.queued.attempts)",
                            EditOrder.nextTry(waitingFor: before, nextAttemptAt: edit.queued.nextAttemptAt),
                            Terminal.age(edit.createdAt),
                            output.cell(edit.queued.lastError, 40),
                        ]
                    }))
            print("\(edits.count) queued \(edits.count == 1 ? "edit" : "edits").")
        }

        /// Names the queued rows no edit can be read from.
        private static func warn(_ unreadable: [(feedKey: String, edit: MalformedPendingEdit)], to output: FileHandle) {
            guard !unreadable.isEmpty else { return }
            var lines = [
                "\(unreadable.count) queued \(unreadable.count == 1 ? "row" : "rows") cannot be read as edits "
                    + "(the feed drops them when it next writes; pagedb verify names them):"
            ]
            for (feedKey, edit) in unreadable {
                lines.append(
                    "  feed \(Terminal.escape(feedKey)), item \(Terminal.escape(edit.itemID)), step \(edit.step): "
                        + Terminal.escape(edit.problem))
            }
            let text = lines.joined(separator: "\n") + "\n"
            // Through `print` on standard output: after the table `print` buffers, also in a pipe.
            if output === FileHandle.standardOutput { return print(text, terminator: "") }
            output.write(Data(text.utf8))
        }

        /// Lists the outbox's history of drops.
        private func listDropped(_ queue: DatabaseQueue) throws {
            let dropped = try queue.read { store in try store.droppedQueuedEdits() }
            if output.json { return try Terminal.printJSON(dropped.map(DroppedEditJSON.init)) }
            guard !dropped.isEmpty else { return print("No queued edits were dropped unsent in this cache.") }
            print(
                Terminal.table(
                    ["FEED", "ITEM", "KIND", "KEY", "DROPPED", "WHY"],
                    dropped.map { edit in
                        [
                            output.cell(edit.feedKey, 24), output.cell(edit.itemID, 24), output.cell(edit.kind, 24),
                            output.cell(edit.idempotencyKey, 36), Terminal.age(edit.droppedAt),
                            output.cell(edit.reason, 60),
                        ]
                    }))
            print("\(dropped.count) \(dropped.count == 1 ? "edit" : "edits") dropped unsent.")
        }
    }
}

/// `outbox --dropped --json`: one queued edit dropped unsent.
struct DroppedEditJSON: Encodable {
    let feed: String
    let itemID: String
    @Nullable var kind: String?
    @Nullable var argument: String?
    @Nullable var idempotencyKey: String?
    let reason: String
    @Nullable var droppedAt: String?

    init(_ edit: DroppedQueuedEdit) {
        feed = edit.feedKey
        itemID = edit.itemID
        kind = edit.kind
        argument = edit.argument
        idempotencyKey = edit.idempotencyKey
        reason = edit.reason
        droppedAt = Terminal.timestamp(edit.droppedAt)
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
    /// Whether its row left under it: it is still sent, and shows on no row.
    let detached: Bool

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
        detached = edit.detached
    }
}
