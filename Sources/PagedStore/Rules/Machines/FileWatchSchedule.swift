/// How long ``FileChangeWatcher`` waits before its next look at the file's `data_version`. Pure.
///
/// With a signal (inotify, a Darwin notification) the watcher waits for it, and looks on a slow
/// timer only as the backstop for writers that signal nothing. A signal can come a moment before
/// the commit it announces is visible (inotify sees the log's bytes written before SQLite marks
/// them committed), so a signalled look that finds nothing new looks again soon, at growing
/// intervals, until the change shows or the signal was for nothing. Without a signal it polls: often
/// right after a change, less often the longer nothing happens.
struct FileWatchSchedule: Equatable {
    /// Waits in milliseconds: polling (without a signal), settling (after a signal), the backstop.
    static let polling: ClosedRange<Int32> = 20...250
    static let settling: ClosedRange<Int32> = 1...32
    static let backstop: Int32 = 1000

    /// Whether a signal tells of writes.
    let signalled: Bool
    /// The wait before the next look.
    private(set) var wait: Int32

    init(signalled: Bool) {
        self.signalled = signalled
        wait = signalled ? Self.backstop : Self.polling.lowerBound
    }

    /// Takes the outcome of a look: whether the signal woke it, and whether the file had changed.
    mutating func looked(woken: Bool, changed: Bool) {
        guard signalled else {
            wait = changed ? Self.polling.lowerBound : min(wait * 2, Self.polling.upperBound)
            return
        }
        if changed {
            wait = Self.backstop
        } else if woken {
            wait = Self.settling.lowerBound
        } else if wait < Self.settling.upperBound {
            wait *= 2
        } else {
            wait = Self.backstop
        }
    }
}
