import ArgumentParser
import Foundation
import PagedStore

extension PagedDB {
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a feed's policy, state, cursor chain, gap markers, reading position and pending edits.",
            discussion: """
                Each page is listed with the cursor it was asked with, the cursors it returned, its fetch \
                time and its row count. Each gap is listed with the row above it, whether the server can \
                still fill it, and the cursors that fill it from its top and its bottom. The saved reading \
                position is the item the reader had on top of the screen, with its row then and now. \
                Pending edits are optimistic local edits whose server call has not answered (or whose app \
                quit first); one queued for the store's outbox also shows its kind, idempotency key, failed \
                sends, when it is next tried and the last error. A feed whose item type shares its items \
                across feeds says the name it shares them under and how many of its rows other feeds hold \
                too. A feed whose item type declares searchable fields says them, how many documents its \
                search holds, whether rows still wait to be indexed, the bytes the file's index takes, and \
                whether it lacks the index of prefixes that `pagedb reindex` adds to an older file. \
                Opens the file read-only.

                Example:
                  pagedb show home --db app-cache.sqlite
                """)

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The feed's key.") var feed: String

        func run() async throws {
            let (record, pages, gaps, position, edits, sharing, search) = try database.reading(feed: feed) {
                store, record in
                let gaps = try store.gaps(of: record).map { gap in
                    // A gap sits below every row at or above its place: -1 when none is above it.
                    (gap, try store.rowCount(throughPosition: gap.abovePosition, in: record) - 1)
                }
                let position = try store.readingPosition(of: record).map { saved in
                    (saved, row: try store.row(ofItem: saved.itemID, in: record))
                }
                return (
                    record, try store.pages(of: record), gaps, position, try store.pendingEditsIfMigrated(of: record),
                    try store.sharing(of: record), try store.searchSummary(of: record)
                )
            }
            let waitsFor = EditOrder.waitsFor(edits, item: \.itemID) { $0.queued?.idempotencyKey }
            if output.json {
                try Terminal.printJSON(
                    FeedDetailJSON(
                        key: record.key, rows: record.rowCount, state: record.storedContentState,
                        endReached: record.endReached, newestCursor: record.newestCursor,
                        oldestCursor: record.oldestCursor, lastRefresh: Terminal.timestamp(record.lastRefreshAt),
                        lastError: record.lastError, generation: record.generation,
                        policy: record.policy.map { JSONValue(payload: Data($0.utf8)) },
                        sharedAs: sharing?.type, rowsInOtherFeeds: sharing?.sharedRows,
                        search: search.map { summary in
                            .init(
                                fields: summary.fields, documents: summary.documents,
                                waitingToBeIndexed: summary.hasBacklog, indexesPrefixes: summary.indexesPrefixes,
                                indexBytes: summary.indexBytes)
                        },
                        pages: pages.map { page in
                            .init(
                                page: page.pageNo, request: page.request.rawValue, requestCursor: page.requestCursor,
                                olderCursor: page.olderCursor, newerCursor: page.newerCursor,
                                fetchedAt: Terminal.timestamp(page.fetchedAt), rows: page.rowCount)
                        },
                        gaps: gaps.map { gap, row in
                            .init(
                                id: gap.id, afterRow: row, state: gap.unfillable ? "unfillable" : "fillable",
                                cursor: gap.cursor, newerCursor: gap.newerCursor,
                                createdAt: Terminal.timestamp(gap.createdAt))
                        },
                        readingPosition: position.map { saved, row in
                            .init(
                                itemID: saved.itemID, row: row, savedRow: saved.row, offset: saved.offset,
                                savedAt: Terminal.timestamp(saved.savedAt))
                        },
                        pendingEdits: zip(edits, waitsFor).map { edit, before in
                            .init(
                                itemID: edit.itemID, kind: edit.kind.rawValue,
                                createdAt: Terminal.timestamp(edit.createdAt), outboxKind: edit.queued?.kind,
                                idempotencyKey: edit.queued?.idempotencyKey.uuidString,
                                attempts: edit.queued?.attempts, lastError: edit.queued?.lastError,
                                nextAttemptAt: Terminal.timestamp(edit.queued?.nextAttemptAt),
                                waitsFor: before?.uuidString)
                        }))
                return
            }
            print("Feed \(Terminal.escape(record.key)): \(record.rowCount) rows, \(record.storedContentState)")
            print("  refreshed:  \(Terminal.age(record.lastRefreshAt)) (generation \(record.generation))")
            print("  newest:     \(output.cell(record.newestCursor, 60))")
            print(
                "  oldest:     \(output.cell(record.oldestCursor, 60))\(record.endReached ? " (end reached)" : "")"
            )
            print("  last error: \(output.cell(record.lastError, 100))")
            print("  policy:     \(output.cell(record.policy, 200))")
            if let sharing {
                print(
                    "  shared as:  \(output.cell(sharing.type, 40)) (\(sharing.sharedRows) of its rows are in other "
                        + "feeds too)")
            }
            if let search {
                let size = search.indexBytes.map { ", the file's index \(FileSizes.text($0))" } ?? ""
                let prefixes = search.indexesPrefixes ? "" : "; no index of prefixes: pagedb reindex adds it"
                print(
                    "  searchable: \(output.cell(search.fields.joined(separator: ", "), 80)) (\(search.documents) "
                        + "documents\(search.hasBacklog ? ", rows still to index" : "")\(size)\(prefixes))")
            }
            print("\nPages (top first):")
            print(
                Terminal.table(
                    ["PAGE", "REQUEST", "ASKED WITH", "OLDER", "NEWER", "FETCHED", "ROWS"],
                    pages.map { page in
                        [
                            "\(page.pageNo)", page.request.rawValue, output.cell(page.requestCursor, 20),
                            output.cell(page.olderCursor, 20), output.cell(page.newerCursor, 20),
                            Terminal.age(page.fetchedAt), "\(page.rowCount)",
                        ]
                    }))
            if !gaps.isEmpty {
                print("\nGaps:")
                for (gap, row) in gaps {
                    let state = gap.unfillable ? "unfillable (the server has nothing between its edges)" : "fillable"
                    print("  gap \(gap.id) after row \(row): \(state)")
                    print("    from the top with:    \(output.cell(gap.cursor, 40))")
                    print("    from the bottom with: \(output.cell(gap.newerCursor, 40))")
                }
            }
            if let (saved, row) = position {
                let now = row.map { "row \($0) now" } ?? "no longer in the feed"
                print("\nReading position: \(output.cell(saved.itemID, 40)) (saved at row \(saved.row), \(now))")
                print("  offset \(saved.offset), saved \(Terminal.age(saved.savedAt))")
            }
            if !edits.isEmpty {
                print("\nPending edits (waiting for their server call):")
                for (edit, before) in zip(edits, waitsFor) {
                    print("  \(edit.kind.rawValue) \(output.cell(edit.itemID, 40)), \(Terminal.age(edit.createdAt))")
                    if let queued = edit.queued {
                        let nextTry = EditOrder.nextTry(waitingFor: before, nextAttemptAt: queued.nextAttemptAt)
                        print(
                            "    queued as \(output.cell(queued.kind, 40)), key \(queued.idempotencyKey.uuidString), "
                                + "\(queued.attempts) failed sends, next try \(nextTry)"
                                + (queued.lastError.map { ", last error: \(output.cell($0, 80))" } ?? ""))
                    }
                }
            }
        }
    }
}
