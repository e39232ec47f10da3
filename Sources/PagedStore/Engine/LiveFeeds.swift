import Foundation

/// What one write of a feed changed, as told to the other open `Feed`s of that feed in this process.
struct WrittenFeed: Sendable {
    /// The feed's key.
    let key: String
    /// The feed's row as the file had it right before the write.
    let before: FeedRecord
    /// The feed's row as the write left it.
    let after: FeedRecord
    /// The change, as row indices of the file's rows before and after the write; a full reload when
    /// the write cannot name the rows.
    let change: RowChange
    /// The ``FeedWriter/follower`` of the `Feed` that wrote, which is not told.
    let writer: Int
}

/// Every open `Feed` in this process, by file and key, so that each write is told to the others at
/// once: a second screen on the same feed, or a second store on the same file, follows a write
/// with the exact change instead of at its own next read.
///
/// Writes are told after their transaction committed, in order, through one stream per follower;
/// nothing runs while no feed is open.
final class LiveFeeds: @unchecked Sendable {
    // @unchecked: `followers` and `lastID` are only touched with `lock` held.
    static let shared = LiveFeeds()
    private let lock = NSLock()
    private var followers: [FileIdentity: [String: [Int: AsyncStream<WrittenFeed>.Continuation]]] = [:]
    /// The row each feed's last write in this process left, announced before that write commits.
    private var announced: [FileIdentity: [String: FeedRecord]] = [:]
    private var lastID = 0

    /// A new follower id, for a `Feed`'s writer.
    func newFollower() -> Int {
        lock.withLock {
            lastID &+= 1
            return lastID
        }
    }

    /// The writes of feed `key` in `file` that followers other than `follower` make, from now on,
    /// until ``stopFollowing(_:file:key:)``.
    func follow(_ follower: Int, file: FileIdentity, key: String) -> AsyncStream<WrittenFeed> {
        let (stream, continuation) = AsyncStream.makeStream(of: WrittenFeed.self)
        lock.withLock { followers[file, default: [:]][key, default: [:]][follower] = continuation }
        return stream
    }

    /// Ends `follower`'s stream.
    func stopFollowing(_ follower: Int, file: FileIdentity, key: String) {
        let continuation = lock.withLock { () -> AsyncStream<WrittenFeed>.Continuation? in
            let removed = followers[file]?[key]?.removeValue(forKey: follower)
            if followers[file]?[key]?.isEmpty == true { followers[file]?[key] = nil }
            if followers[file]?.isEmpty == true { followers[file] = nil }
            return removed
        }
        continuation?.finish()
    }

    /// Records, inside the write's transaction and so before any reader can see its rows, that a
    /// write of this process leaves `written.after`: a feed that meets that row in the file waits
    /// for the write to be told, with its exact change, instead of taking the file whole.
    func announce(_ written: WrittenFeed, in file: FileIdentity) {
        lock.withLock { announced[file, default: [:]][written.key] = written.after }
    }

    /// Whether `row` is what a write of this process left, told or about to be told.
    func isAnnounced(_ row: FeedRecord, in file: FileIdentity) -> Bool {
        lock.withLock { announced[file]?[row.key] == row }
    }

    /// Tells every follower of the written feed but its writer.
    func tell(_ written: WrittenFeed, in file: FileIdentity) {
        let others = lock.withLock { followers[file]?[written.key] ?? [:] }
        for (follower, continuation) in others where follower != written.writer { continuation.yield(written) }
    }
}
