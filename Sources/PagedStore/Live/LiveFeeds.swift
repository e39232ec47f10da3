import Foundation

/// Every open `Feed` in this process, by file, so that each write reaches the others at once: a
/// second screen on the same feed, a second store on the same file, and (through one
/// ``FileChangeWatcher`` per file while any feed of it is observed) another process.
///
/// A follower is only nudged: it then looks at the file, and the change record tells it what changed
/// since the row it holds (see ``Feed/followFile(mayWrite:wholeWindow:)``). Nudges do not queue up: a
/// follower that is nudged twice before it looks looks once, and takes both writes as one change.
final class LiveFeeds: @unchecked Sendable {
    // @unchecked: every property is only touched with `lock` held.
    static let shared = LiveFeeds()
    private let lock = NSLock()

    private struct Follower {
        let key: String
        let nudge: AsyncStream<Void>.Continuation
        /// A store's outbox or a live search: nudged after every write of the file, whatever feed
        /// it wrote.
        var followsEveryWrite = false
        /// How the feed's pending edits go again on a value, with the changes it made (see
        /// ``Feed/publishCarry()``); nil when it has none.
        var carry: PendingEditStack.Carry?
        var observed = false
        /// How many rows from the top the follower holds loaded: a budget never removes them.
        var keptRows = 0
    }

    private var followers: [FileIdentity: [Int: Follower]] = [:]
    private var watchers: [FileIdentity: FileChangeWatcher] = [:]
    private var lastID = 0

    /// A new follower id, for a `Feed`'s writer.
    func newFollower() -> Int {
        lock.withLock {
            lastID &+= 1
            return lastID
        }
    }

    /// The nudges for `follower`, a feed of `key` in `file`: one after any write of the feed by
    /// another follower of this process, and while observed, after any commit to the file by another
    /// process; until ``stopFollowing(_:file:)``.
    func follow(_ follower: Int, file: FileIdentity, key: String) -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        lock.withLock { followers[file, default: [:]][follower] = Follower(key: key, nudge: continuation) }
        return stream
    }

    /// The nudges for `follower`, a store's ``Outbox`` or a ``SearchList`` in `file`: one after every
    /// write to the file by another follower of this process (the queued edits and the search index
    /// are part of every feed), and while observed, after any commit to the file by another process;
    /// until ``stopFollowing(_:file:)``.
    func followEveryWrite(_ follower: Int, file: FileIdentity) -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        lock.withLock {
            followers[file, default: [:]][follower] = Follower(key: "", nudge: continuation, followsEveryWrite: true)
        }
        return stream
    }

    /// Ends `follower`'s nudges.
    func stopFollowing(_ follower: Int, file: FileIdentity) {
        let (removed, watcher) = lock.withLock { () -> (Follower?, FileChangeWatcher?) in
            let removed = followers[file]?.removeValue(forKey: follower)
            if followers[file]?.isEmpty == true { followers[file] = nil }
            return (removed, stopWatcherIfUnobserved(file))
        }
        removed?.nudge.finish()
        watcher?.stop()
    }

    /// Whether `follower` is observed: while any follower of a file is, the file is watched for other
    /// processes' commits (`path` is the file as SQLite opened it). A follower that becomes observed
    /// is nudged at once: the file may have changed while nobody watched.
    func setObserved(_ observed: Bool, follower: Int, file: FileIdentity, path: String) {
        let stopped = lock.withLock { () -> FileChangeWatcher? in
            guard let before = followers[file]?[follower] else { return nil }
            followers[file]?[follower]?.observed = observed
            guard observed else { return stopWatcherIfUnobserved(file) }
            if !before.observed { before.nudge.yield() }
            if watchers[file] == nil {
                watchers[file] = FileChangeWatcher(path: path, identity: file) { [weak self] look in
                    self?.nudgeObserved(of: file, &look)
                }
            }
            return nil
        }
        stopped?.stop()
    }

    /// Records that `follower` holds the top `rows` rows loaded (its window's end).
    func setKeptRows(_ rows: Int, follower: Int, file: FileIdentity) {
        lock.withLock { followers[file]?[follower]?.keptRows = rows }
    }

    /// The open feeds of `file` in this process, each with the most rows any of its lists holds
    /// loaded from the top.
    func keptRows(in file: FileIdentity) -> [String: Int] {
        lock.withLock {
            var kept: [String: Int] = [:]
            for follower in (followers[file] ?? [:]).values where !follower.followsEveryWrite {
                kept[follower.key] = max(kept[follower.key] ?? 0, follower.keptRows)
            }
            return kept
        }
    }

    /// Records how `follower` carries its pending edits' changes onto a value (nil: it has none).
    func setCarry(_ carry: PendingEditStack.Carry?, follower: Int, file: FileIdentity) {
        lock.withLock { followers[file]?[follower]?.carry = carry }
    }

    /// How the open feeds of `key` in `file` carry the changes of the pending edits they made onto a
    /// value: the first of them that knows an edit's change; nil when none has any. A feed whose
    /// model cannot read the value (a model the app changed, another target) does not know the change
    /// there: the edit goes by what it changed, and the writer never takes the value for one its
    /// own codec cannot decode.
    func carry(forKey key: String, in file: FileIdentity) -> PendingEditStack.Carry? {
        let carries = lock.withLock {
            (followers[file] ?? [:]).values.filter { !$0.followsEveryWrite && $0.key == key }.compactMap(\.carry)
        }
        guard !carries.isEmpty else { return nil }
        return { edit, value in
            for carry in carries {
                if let carried = (try? carry(edit, value)) ?? nil { return carried }
            }
            return nil
        }
    }

    /// ``carry(forKey:in:)`` by feed key, for a spread of shared copies in `file` (none without one).
    func carries(in file: FileIdentity?) -> (String) -> PendingEditStack.Carry? {
        { [self] key in file.flatMap { carry(forKey: key, in: $0) } }
    }

    /// Nudges every follower of `key` in `file` but `writer`, after `writer` committed a write of it.
    func tell(writeOf key: String, by writer: Int, in file: FileIdentity) {
        let others = lock.withLock { followers[file] ?? [:] }
        for (follower, other) in others where follower != writer && !other.followsEveryWrite && other.key == key {
            other.nudge.yield()
        }
    }

    /// Nudges every outbox and live search following `file` but `writer`'s, after `writer` committed
    /// a write to it.
    func tellEveryWriteFollowers(in file: FileIdentity, by writer: Int) {
        let others = lock.withLock { followers[file] ?? [:] }
        for (follower, other) in others where follower != writer && other.followsEveryWrite { other.nudge.yield() }
    }

    /// Someone committed to `file`: nudges every observed outbox and live search, and the observed lists of each feed
    /// whose row `look` finds changed (a list whose feed's row did not change would look and find
    /// nothing, in the way of the lists that have something to follow).
    private func nudgeObserved(of file: FileIdentity, _ look: inout FileLook) {
        let observed = lock.withLock { followers[file]?.values.filter(\.observed) ?? [] }
        let keys = Set(observed.lazy.filter { !$0.followsEveryWrite }.map(\.key))
        look.keep(only: keys)
        let changed = look.changedFeeds(keys)
        for follower in observed where follower.followsEveryWrite || changed.contains(follower.key) {
            follower.nudge.yield()
        }
    }

    /// Takes `file`'s watcher away when no follower of it is observed; the caller stops it, outside
    /// the lock. Call with `lock` held.
    private func stopWatcherIfUnobserved(_ file: FileIdentity) -> FileChangeWatcher? {
        guard followers[file]?.values.contains(where: \.observed) != true else { return nil }
        return watchers.removeValue(forKey: file)
    }
}
