import Foundation

/// Noticing other processes' writes (an app extension, `pagedb`) while someone follows the
/// snapshots, so an open list shows them without waiting for its own next read or write.
///
/// Writes in this process are told at once (see ``LiveFeeds``); another process's commit shows
/// only in the file. So while a list is observed the feed looks at SQLite's `data_version` (one
/// statement, no page read), often right after a write and less often the longer nothing
/// happens, and takes the file's rows when another writer changed this feed. Nobody observing, it
/// does nothing.
extension Feed {
    /// The wait before the first look after a change, and the longest wait between looks.
    static var watchIntervals: (shortest: Duration, longest: Duration) { (.milliseconds(20), .milliseconds(250)) }

    /// Starts looking for other processes' writes, unless the feed looks already.
    func watchWhileObserved() {
        guard running.watch == nil, isObserved, !queue.isClosed else { return }
        running.watch = Task { [weak self] in
            var wait = Self.watchIntervals.shortest
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: wait)
                } catch {
                    return
                }
                guard let changed = await self?.lookForOtherWrites() else { return }
                wait = changed ? Self.watchIntervals.shortest : min(wait * 2, Self.watchIntervals.longest)
            }
        }
    }

    /// Takes the file's rows if another writer changed this feed since the feed last looked.
    /// - Returns: Whether the file's row had changed; nil once the store is closed (the look ends).
    private func lookForOtherWrites() -> Bool? {
        guard !queue.isClosed else { return nil }
        // A failed look is left to the next one, and to the feed's next read or write.
        return (try? syncWithFile(leavingToldWrites: true)) ?? false
    }
}
