import ArgumentParser
import Foundation
import PagedStore

extension PagedDB {
    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show how much of a cache file each feed takes, when it was last opened, and the free pages.",
            discussion: """
                Opens the file read-only: it is never created or changed. A feed's size counts its rows' \
                payloads and ids and a fixed cost a row; LAST OPENED is what a store's budget evicts by \
                (feeds opened longest ago first). FREE PAGES are pages deletes emptied that the file still \
                holds: `pagedb vacuum` gives them back.

                Examples:
                  pagedb stats --db app-cache.sqlite
                  pagedb stats --db app-cache.sqlite --json
                """)

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let path = try database.path()
            let (uses, space) = try database.openForReading().read { store in
                (try store.feedUses(), try store.fileSpace())
            }
            let onDisk = FileSizes(path: path)
            if output.json {
                try Terminal.printJSON(StatsJSON(uses: uses, space: space, onDisk: onDisk))
                return
            }
            if !uses.isEmpty {
                print(
                    Terminal.table(
                        ["FEED", "ROWS", "SIZE", "LAST OPENED", "PENDING EDITS"],
                        uses.sorted { $0.bytes > $1.bytes }.map { use in
                            [
                                output.cell(use.feed.key, 32), "\(use.feed.rowCount)", FileSizes.text(use.bytes),
                                use.openedAt == nil ? "never" : Terminal.age(use.openedAt),
                                use.hasPendingEdits ? "yes" : "no",
                            ]
                        }))
                print("")
            }
            print("File: \(FileSizes.text(onDisk.file)) on disk (log \(FileSizes.text(onDisk.log))).")
            print(
                "Pages: \(space.pageCount) of \(space.pageSize) bytes, \(space.freePages) free "
                    + "(\(FileSizes.text(space.freePages * space.pageSize))); auto-vacuum "
                    + (space.isIncremental ? "incremental." : "off: `pagedb vacuum` converts the file."))
        }
    }
}

/// `pagedb stats --json`.
struct StatsJSON: Encodable {
    struct Feed: Encodable {
        let key: String
        let rows: Int
        let bytes: Int64
        @Nullable var lastOpened: String?
        let pendingEdits: Bool
    }

    let feeds: [Feed]
    let fileBytes: Int64
    let logBytes: Int64
    let pageSize: Int64
    let pages: Int64
    let freePages: Int64
    let incrementalVacuum: Bool

    init(uses: [PageStore.FeedUse], space: PageStore.FileSpace, onDisk: FileSizes) {
        feeds = uses.map { use in
            Feed(
                key: use.feed.key, rows: use.feed.rowCount, bytes: use.bytes,
                lastOpened: Terminal.timestamp(use.openedAt), pendingEdits: use.hasPendingEdits)
        }
        fileBytes = onDisk.file
        logBytes = onDisk.log
        pageSize = space.pageSize
        pages = space.pageCount
        freePages = space.freePages
        incrementalVacuum = space.isIncremental
    }
}
