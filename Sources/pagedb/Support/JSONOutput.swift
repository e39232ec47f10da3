import Foundation
import PagedStore

/// An optional that `--json` writes as `null` when it is nil (the synthesized `Encodable` would leave
/// the key out): scripts read a fixed set of keys, as the "Using pagedb" article lists them.
@propertyWrapper
struct Nullable<Value: Encodable>: Encodable {
    var wrappedValue: Value?

    init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

extension JSONValue {
    /// The value of a stored payload, for what `pagedb` passes through without a schema of its own
    /// (item payloads, the stored feed policy): its JSON, or the text itself when it is not JSON.
    init(payload: Data) {
        self = JSONValue.decode(payload) ?? .string(String(decoding: payload, as: UTF8.self))
    }
}

/// `feeds --json`: one feed.
struct FeedSummaryJSON: Encodable {
    let key: String
    let rows: Int
    let pages: Int
    let gaps: Int
    @Nullable var newestCursor: String?
    @Nullable var oldestCursor: String?
    let endReached: Bool
    @Nullable var lastRefresh: String?
    let state: String
    @Nullable var lastError: String?

    init(_ feed: FeedRecord, pages: Int, gaps: Int) {
        key = feed.key
        rows = feed.rowCount
        self.pages = pages
        self.gaps = gaps
        newestCursor = feed.newestCursor
        oldestCursor = feed.oldestCursor
        endReached = feed.endReached
        lastRefresh = Terminal.timestamp(feed.lastRefreshAt)
        state = feed.storedContentState
        lastError = feed.lastError
    }
}

/// `show --json`.
struct FeedDetailJSON: Encodable {
    struct PageJSON: Encodable {
        let page: Int64
        let request: String
        @Nullable var requestCursor: String?
        @Nullable var olderCursor: String?
        @Nullable var newerCursor: String?
        @Nullable var fetchedAt: String?
        let rows: Int
    }

    struct GapJSON: Encodable {
        let id: Int64
        let afterRow: Int
        /// `fillable` or `unfillable` (the server answered with nothing between the gap's edges).
        let state: String
        @Nullable var cursor: String?
        @Nullable var newerCursor: String?
        @Nullable var createdAt: String?
    }

    struct ReadingPositionJSON: Encodable {
        let itemID: String
        /// The item's row now; nil when the feed no longer has it.
        @Nullable var row: Int?
        let savedRow: Int
        let offset: Double
        @Nullable var savedAt: String?
    }

    let key: String
    let rows: Int
    let state: String
    let endReached: Bool
    @Nullable var newestCursor: String?
    @Nullable var oldestCursor: String?
    @Nullable var lastRefresh: String?
    @Nullable var lastError: String?
    let generation: Int64
    @Nullable var policy: JSONValue?
    /// The name the feed's item type shares its items under, null when they are its own.
    @Nullable var sharedAs: String?
    /// How many of its rows other feeds of that name hold too; null when it does not share.
    @Nullable var rowsInOtherFeeds: Int?
    /// What its search holds; null when its item type declares no searchable fields.
    struct SearchJSON: Encodable {
        let fields: [String]
        let documents: Int64
        /// Whether rows cached before the fields were declared still wait to be indexed.
        let waitingToBeIndexed: Bool
        /// Whether the index holds its index of three-letter prefixes, which makes a word being
        /// typed fast (an index made by an earlier PagedStore gains it at `pagedb reindex`).
        let indexesPrefixes: Bool
        /// The bytes the whole file's index takes; null where SQLite cannot say.
        @Nullable var indexBytes: Int64?
    }
    @Nullable var search: SearchJSON?
    /// An optimistic edit waiting for its server call.
    struct PendingEditJSON: Encodable {
        let itemID: String
        let kind: String
        @Nullable var createdAt: String?
        /// The outbox's part: null for an edit whose server call is a closure.
        @Nullable var outboxKind: String?
        @Nullable var idempotencyKey: String?
        @Nullable var attempts: Int?
        @Nullable var lastError: String?
        /// The earliest time of the next send after a failed one; null when none failed.
        @Nullable var nextAttemptAt: String?
        /// The idempotency key of the edit of the same item it waits for; null for an item's first.
        @Nullable var waitsFor: String?
    }

    let pages: [PageJSON]
    let gaps: [GapJSON]
    @Nullable var readingPosition: ReadingPositionJSON?
    let pendingEdits: [PendingEditJSON]
}

/// `items --json` and `--ndjson`: one row.
struct ItemJSON: Encodable {
    let row: Int
    let id: String
    @Nullable var section: String?
    let payload: JSONValue
}

/// `verify --json`.
struct VerifyJSON: Encodable {
    struct Violation: Encodable {
        @Nullable var feed: String?
        let rule: String
        let detail: String
    }

    let ok: Bool
    let feeds: Int
    let violations: [Violation]
}

/// `schema --json`.
struct SchemaJSON: Encodable {
    struct MigrationJSON: Encodable {
        let version: Int
        let name: String
        let sql: String
    }

    @Nullable var fileVersion: Int?
    let libraryVersion: Int
    let migrations: [MigrationJSON]
}

/// `apply --json`.
struct ApplyJSON: Encodable {
    struct Move: Encodable {
        let from: [Int]
        let to: [Int]
    }

    struct State: Encodable {
        let content: String
        let refresh: String
        let nextPage: String
    }

    struct Cursors: Encodable {
        @Nullable var newestBefore: String?
        @Nullable var newestAfter: String?
        @Nullable var oldestBefore: String?
        @Nullable var oldestAfter: String?
    }

    let fullReload: Bool
    let inserted: [[Int]]
    let reloaded: [[Int]]
    let deleted: [[Int]]
    let moved: [Move]
    let insertedSections: [Int]
    let deletedSections: [Int]
    let gapCreated: Bool
    let dryRun: Bool
    let rows: Int
    let state: State
    let cursors: Cursors

    init(
        _ change: FeedChange, gapCreated: Bool, dryRun: Bool, rows: Int, state: State, cursors: Cursors
    ) {
        let pairs = { (paths: [IndexPath]) in paths.map { [$0[0], $0[1]] } }
        fullReload = change.isFullReload
        inserted = pairs(change.insertedRows)
        reloaded = pairs(change.reloadedRows)
        deleted = pairs(change.deletedRows)
        moved = change.movedRows.map { Move(from: [$0.from[0], $0.from[1]], to: [$0.to[0], $0.to[1]]) }
        insertedSections = Array(change.insertedSections)
        deletedSections = Array(change.deletedSections)
        self.gapCreated = gapCreated
        self.dryRun = dryRun
        self.rows = rows
        self.state = state
        self.cursors = cursors
    }
}

/// `watch --json`: one snapshot of the followed feed, one line each.
struct WatchJSON: Encodable {
    let feed: String
    /// The snapshot's number: 0 for the rows as the feed opened, then one more per change.
    let sequence: Int
    let fullReload: Bool
    let inserted: [[Int]]
    let reloaded: [[Int]]
    let deleted: [[Int]]
    let moved: [ApplyJSON.Move]
    let insertedSections: [Int]
    let deletedSections: [Int]
    let rows: Int
    let gaps: Int
    let state: ApplyJSON.State

    init(feed: String, sequence: Int, change: FeedChange, rows: Int, gaps: Int, state: ApplyJSON.State) {
        let pairs = { (paths: [IndexPath]) in paths.map { [$0[0], $0[1]] } }
        self.feed = feed
        self.sequence = sequence
        fullReload = change.isFullReload
        inserted = pairs(change.insertedRows)
        reloaded = pairs(change.reloadedRows)
        deleted = pairs(change.deletedRows)
        moved = change.movedRows.map { ApplyJSON.Move(from: [$0.from[0], $0.from[1]], to: [$0.to[0], $0.to[1]]) }
        insertedSections = Array(change.insertedSections)
        deletedSections = Array(change.deletedSections)
        self.rows = rows
        self.gaps = gaps
        self.state = state
    }
}
