import Foundation

/// Recording a failed fetch in the feed's row.
extension Feed {
    /// Records a failed fetch in the cache for `pagedb`, best effort: a storage failure here must not
    /// hide the fetch's own error.
    func recordError(_ error: FeedError) {
        // A busy file would only make this write wait out the same lock a second time.
        // A read-only store records nothing: the failure shows in the feed's activity only.
        guard error.storageKind != .busy, !queue.isReadOnly, let written = try? writer.record(error: error.message)
        else { return }
        var inStep = loaded.record
        inStep.lastError = error.message
        inStep.changeCount &+= 1
        // Another `Feed`'s write stays noticeable: only a row this feed held takes the new count.
        if written == inStep { loaded.record = written } else { loaded.record.lastError = error.message }
    }
}
