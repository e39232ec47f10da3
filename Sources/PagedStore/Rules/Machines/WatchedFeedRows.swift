/// Which observed lists a commit seen by a file's watcher nudges. Pure.
///
/// A nudged list reads its feed's row and follows only when it differs from the one it holds (see
/// ``Feed/syncWithFile(mayWrite:)``). The watcher reads the rows of the observed feeds once per
/// look instead, and nudges the lists of the feeds whose row changed since its last look: a write
/// of one feed then costs nothing to the lists of the file's other feeds. A row it could not read,
/// or has not seen, counts as changed, so a list is never left behind.
struct WatchedFeedRows {
    /// The row of each observed feed at the last look (nil inside: the file had no such feed).
    private var seen: [String: FeedRecord?] = [:]

    /// Whether the lists of `key` must look, given its row now (nil: the look failed; `.some(nil)`:
    /// the file has no such feed). Records the row for the next look.
    mutating func changed(_ key: String, now row: FeedRecord??) -> Bool {
        guard let row else {
            seen[key] = nil
            return true
        }
        defer { seen[key] = .some(row) }
        guard let before = seen[key] else { return true }
        return before != row
    }

    /// Forgets the feeds no list observes any more: one observed again is nudged when it becomes
    /// observed, and seen afresh at the next look.
    mutating func keep(only keys: Set<String>) {
        seen = seen.filter { keys.contains($0.key) }
    }
}
