import Foundation

/// Following other writers live while someone observes the snapshots, so an open list shows their
/// writes without waiting for its own next read or write.
///
/// Writes of this process nudge the feed as they commit; other processes' commits nudge it through
/// the file's watcher (``FileChangeWatcher``, one per file, which runs only while some feed of the
/// file is observed). A nudged feed follows by reading only (see ``syncWithFile(mayWrite:)``); rows
/// it cannot decode, an observed feed first removes with a write of its own (``UndecodableFollowRule``).
extension Feed {
    /// Starts following the nudges of other writers, for the feed's life: called once, at open.
    nonisolated func followOtherWriters(keptRows: Int) {
        guard let file = queue.file else { return }
        let nudges = LiveFeeds.shared.follow(writer.follower, file: file, key: key)
        LiveFeeds.shared.setKeptRows(keptRows, follower: writer.follower, file: file)
        Task { [weak self] in
            for await _ in nudges { await self?.followNudge() }
        }
        // A closed store's feeds follow nothing, and its file stops being watched for them.
        let follower = writer.follower
        _ = queue.onClose { LiveFeeds.shared.stopFollowing(follower, file: file) }
    }

    /// Tells ``LiveFeeds`` how many rows from the top this list holds loaded, when that changed:
    /// a store's budget never trims them.
    func publishKeptRows() {
        let end = loaded.window.end
        guard end != publishedKeptRows, let file = queue.file else { return }
        publishedKeptRows = end
        LiveFeeds.shared.setKeptRows(end, follower: writer.follower, file: file)
    }

    /// Tells ``LiveFeeds`` how this feed's pending edits go again on a value: another feed's write
    /// of a fresher copy of a shared item applies them again with the changes this feed made.
    func publishCarry() {
        guard let file = queue.file else { return }
        let carry = optimistic.changes.isEmpty ? nil : writer.carry(optimistic.changes)
        LiveFeeds.shared.setCarry(carry, follower: writer.follower, file: file)
    }

    /// Has the file watched for other processes' commits while the snapshots are observed.
    func watchWhileObserved() {
        guard let file = queue.file else { return }
        LiveFeeds.shared.setObserved(isObserved, follower: writer.follower, file: file, path: queue.resolvedPath)
    }

    private func followNudge() {
        guard !queue.isClosed else { return }
        // A failed look is left to the next nudge, and to the feed's next read or write.
        _ = try? syncWithFile(mayWrite: false)
    }
}
