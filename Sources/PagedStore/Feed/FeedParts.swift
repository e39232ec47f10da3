import Foundation

/// What a feed is made of and never changes: its key and policy, where its pages come from, the
/// one path by which it writes the file, and the rows the app reports as they appear.
struct FeedContext<Item: FeedItem>: Sendable {
    let key: String
    let policy: FeedPolicy
    let source: any PageSource<Item>
    let writer: FeedWriter<Item>
    let appearances: RowAppearances<Item>
    /// The store's outbox, which sends the feed's queued edits (none for a read-only store).
    let outbox: WeakOutbox
}

/// The store's outbox, held without keeping it: the outbox holds a feed with queued edits.
struct WeakOutbox: Sendable {
    weak var outbox: Outbox?
}

/// What a feed holds of its rows: the part of the file the snapshot is built from.
struct LoadedFeed<Item: FeedItem> {
    /// The feed's row as last committed or read.
    var record: FeedRecord
    /// The file's write mark when the feed last found its row equal to ``record`` (see
    /// ``Feed/syncWithFile(mayWrite:)``).
    var writeMark: DatabaseQueue.WriteMark?
    /// The rows held in memory.
    var window: RowWindow<Item>
    var layout: SectionLayout
    /// The gap markers as stored; their states come from the feed's activity.
    var gaps: [(record: GapRecord, afterRow: Int)]
}

/// The fetches a feed has in flight, for joining a running next page and cancelling superseded ones.
struct RunningFetches {
    var tasks: [FeedActivity.TaskID: Task<Void, Never>] = [:]
    /// How many callers wait for each next page that callers started (see
    /// ``Feed/waitForNextPage(_:_:startedByCaller:)``).
    var nextPageCallers: [FeedActivity.TaskID: Int] = [:]
    /// The waits of the callers of each next page in flight, answered when it ends: by the page's
    /// own task, on the feed, rather than by a task per caller watching it from the global pool.
    var nextPageWaits: [FeedActivity.TaskID: [FirstAnswer<Void>]] = [:]

    /// The wait of one more caller of the fetch `id`; already answered when `id` has ended.
    mutating func wait(for id: FeedActivity.TaskID) -> FirstAnswer<Void> {
        let wait = FirstAnswer<Void>()
        if tasks[id] == nil {
            wait.give(.success(()))
        } else {
            nextPageWaits[id, default: []].append(wait)
        }
        return wait
    }

    /// The fetch `id` ended: it is no longer running, and every caller waiting for it goes on.
    mutating func ended(_ id: FeedActivity.TaskID) {
        tasks[id] = nil
        for wait in nextPageWaits.removeValue(forKey: id) ?? [] { wait.give(.success(())) }
    }
}

/// Where the reader is: the rows on screen as the app last reported them (the scroll anchor and the
/// reading position), and the saves of that position.
struct ReaderPlace {
    var visible: VisibleRows?
    /// When the reading position was last saved and what it was, and the save waiting for the
    /// second to pass.
    var saves = PositionSaves()
}
