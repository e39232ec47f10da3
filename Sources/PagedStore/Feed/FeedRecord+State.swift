extension FeedRecord {
    /// The content state as the file alone tells it (no fetch is running in `pagedb`):
    /// `content`, `empty`, `error` (never loaded, last fetch failed) or `initialLoading` (never loaded).
    package var storedContentState: String {
        if rowCount > 0 { return "content" }
        if loaded { return "empty" }
        return lastError == nil ? "initialLoading" : "error"
    }
}
