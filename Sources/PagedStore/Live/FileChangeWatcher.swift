import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Notices commits to a cache file by any process, and calls `changed` after each, on a thread of
/// its own, until ``stop()``.
///
/// It looks at SQLite's `data_version` on a read-only connection of its own (one statement, no page
/// read) whenever the file may have changed: on Linux when inotify reports a write to the file or
/// its `-wal` or `-journal`, on Apple platforms when a PagedStore writer posts the file's Darwin
/// notification after a commit (``FileChangeSignal``), and otherwise, or as a backstop for writers
/// that signal nothing (`sqlite3`), on a timer (``FileWatchSchedule`` says when). Between changes
/// it blocks: no work while nothing is written. After a change, `changed` gets a ``FileLook`` that
/// reads feed rows on the same connection, so that it nudges only the lists whose feed changed.
final class FileChangeWatcher: @unchecked Sendable {
    // @unchecked: `stopped` is only touched with `lock` held; the rest is set once in `init`.
    private let lock = NSLock()
    private var stopped = false
    /// Written to by ``stop()`` to end the thread's wait at once.
    private let wake: (read: Int32, write: Int32)

    /// Starts watching the file at `path` (the path SQLite opened), or returns nil when no thread
    /// can be started. A file the thread cannot open for reading ends the watch quietly: the feeds
    /// still see other writers' commits at their next read or write.
    init?(path: String, identity: FileIdentity, changed: @escaping @Sendable (inout FileLook) -> Void) {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { return nil }
        wake = (pipeEnds[0], pipeEnds[1])
        // The connection and the signal belong to the thread: opened there, used only there.
        let thread = Thread { [self] in
            guard let connection = try? Connection(path: path, mode: .readOnly, busyTimeout: .milliseconds(100)) else {
                return closeWake()
            }
            run(connection, signal: FileChangeSignal(watching: path, identity: identity), changed: changed)
        }
        thread.name = "PagedStore.fileChanges"
        thread.start()
    }

    /// Ends the watch: the thread wakes, closes its connection and ends, and `changed` is not called
    /// again once it has.
    func stop() {
        lock.withLock {
            guard !stopped else { return }
            stopped = true
            var byte: UInt8 = 1
            _ = write(wake.write, &byte, 1)
        }
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    private func closeWake() {
        lock.withLock {
            close(wake.read)
            close(wake.write)
            // A later stop() must not write to a closed (or reused) descriptor.
            stopped = true
        }
    }

    private func run(_ connection: Connection, signal: FileChangeSignal?, changed: @Sendable (inout FileLook) -> Void) {
        defer { closeWake() }
        var version = Self.dataVersion(connection)
        var look = FileLook(connection: connection)
        // A commit between the moment a feed became observed (and looked at the file) and this
        // first look moved the version this loop starts from: no later look would see it change.
        // One nudge now makes every observed feed look once more (the look has seen no row yet).
        changed(&look)
        var schedule = FileWatchSchedule(signalled: signal != nil)
        while !isStopped {
            var fds = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            if let signal { fds.append(pollfd(fd: signal.descriptor, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), schedule.wait)
            if isStopped { return }
            let woken = ready > 0 && fds.count > 1 && fds[1].revents != 0
            if woken { signal?.drain() }
            let now = Self.dataVersion(connection)
            schedule.looked(woken: woken, changed: now != version)
            if now != version {
                version = now
                changed(&look)
            }
        }
    }

    /// The connection's `data_version`; nil when the look failed (the next one tries again).
    private static func dataVersion(_ connection: Connection) -> Int64? {
        try? connection.readStatement { try connection.int64("PRAGMA data_version") }
    }
}

/// A watcher's look at its file after a commit: reads feed rows on the watcher's own connection, and
/// remembers them from one look to the next (``WatchedFeedRows``).
struct FileLook {
    fileprivate let connection: Connection
    private var rows = WatchedFeedRows()

    fileprivate init(connection: Connection) {
        self.connection = connection
    }

    /// Whether the lists of the feed `key` must look at the file: its row changed since the last
    /// look, or cannot be read.
    mutating func feedChanged(_ key: String) -> Bool {
        let row: FeedRecord??
        do {
            row = .some(try PageStore.feed(key: key, on: connection))
        } catch {
            row = nil
        }
        return rows.changed(key, now: row)
    }

    /// The feeds of `keys` whose lists must look at the file (see ``feedChanged(_:)``), their rows
    /// read in one read transaction: a statement each in its own transaction took a read lock of the
    /// log each, which made a commit reach its lists later the more feeds were observed.
    mutating func changedFeeds(_ keys: Set<String>) -> Set<String> {
        var changed = Set<String>()
        do {
            try connection.readTransaction {
                for key in keys where feedChanged(key) { changed.insert(key) }
            }
        } catch {
            // The transaction could not start: every list looks for itself.
            return keys
        }
        return changed
    }

    /// Forgets the feeds not in `keys`, which no list observes any more.
    mutating func keep(only keys: Set<String>) {
        rows.keep(only: keys)
    }
}
