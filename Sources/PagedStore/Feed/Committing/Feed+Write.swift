import Foundation

/// The one path by which a feed writes the file: a plan run in one transaction of its writer.
extension Feed {
    /// What one committed write did.
    typealias Commit = FeedCommit<Item>

    /// Runs `plan` through the feed's ``FeedWriter`` (one transaction, pending edits re-applied) and
    /// takes what the write says of the pending edits. When the plan wrote nothing, the feed takes
    /// the file's row (another `Feed` may have written it) and nil comes back.
    /// - Parameters:
    ///   - creatingFeed: Whether a feed row the file lacks is created, or the write refused.
    ///   - plan: Writes the rows and returns the commit, with the copies of shared items it stored
    ///     (``FeedCommit/copies``), or nil to write nothing further.
    func write(
        creatingFeed: Bool = true, _ plan: (PageStore, inout FeedRecord) throws -> Commit?
    ) throws -> Commit? {
        let written = try writer.commit(over: loaded.record, creatingFeed: creatingFeed, edits: optimistic, plan)
        if let remain = written.pendingEditsRemain { optimistic.mayHavePending = remain }
        reportDropped(written.droppedEdits)
        guard let commit = written.commit else {
            // Nothing written: another `Feed` may have written the file, which this one follows.
            if written.file != loaded.record { followFileRecordingErrors() }
            return nil
        }
        return commit
    }
}
