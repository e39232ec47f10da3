/// What the list shows.
public enum ContentState: Sendable, Equatable {
    /// Nothing is cached and the first fetch is running.
    case initialLoading
    /// There are rows to show.
    case content
    /// The feed loaded and has no rows.
    case empty
    /// Nothing is cached and the first fetch failed.
    case error(FeedError)
}

/// What a pull-to-refresh is doing.
public enum RefreshActivity: Sendable, Equatable {
    /// No refresh is running.
    case idle
    /// A refresh is running (the first fetch of an empty feed counts as one).
    case loading
    /// The last refresh failed; the rows stay as they were.
    case failed(FeedError)
}

/// What the bottom of the list is doing.
public enum NextPageActivity: Sendable, Equatable {
    /// Nothing is loading; more may come.
    case idle
    /// A next page is loading.
    case loading
    /// The last next page failed; ``Feed/retry()`` repeats it, and prefetch waits for that.
    case failed(FeedError)
    /// The server said there is nothing older.
    case endReached
}
