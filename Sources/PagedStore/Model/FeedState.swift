/// Why a fetch or a write failed, as a feed reports it in its states.
public struct FeedError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public enum Kind: String, Sendable, Equatable {
        /// The source threw; ``FeedError/message`` is its description.
        case source
        /// The cache file failed; see ``FeedError/storageKind``.
        case storage
        /// The server answered a next page with the cursor it was asked with, or only with items
        /// the feed already has: following it would loop forever.
        case paginationLoop
        /// The item could not be encoded or decoded by the feed's codec.
        case codec
    }

    /// The kind of failure.
    public let kind: Kind
    /// A sentence for logs and for people.
    public let message: String
    /// The storage error's kind, when ``kind`` is ``Kind/storage``.
    public let storageKind: StorageError.Kind?
    /// Seconds to wait before retrying: the source's ``RetryAfterProviding/retryAfter`` (for HTTP, the
    /// later of `Retry-After` and a rate-limit reset); ``Feed/retry()`` waits them out.
    public let retryAfter: Double?
    /// The error the source or the cache threw, whole, so an app can tell a `401` from a `503`
    /// (``httpError``) or recognise its own error type. Not compared by `==`.
    public let underlying: (any Error)?

    /// Creates an error.
    public init(
        _ kind: Kind, message: String, storageKind: StorageError.Kind? = nil, retryAfter: Double? = nil,
        underlying: (any Error)? = nil
    ) {
        self.kind = kind
        self.message = message
        self.storageKind = storageKind
        self.retryAfter = retryAfter
        self.underlying = underlying
    }

    /// Equal when kind, message, storage kind and wait are (the underlying error has no `==`).
    public static func == (lhs: FeedError, rhs: FeedError) -> Bool {
        lhs.kind == rhs.kind && lhs.message == rhs.message && lhs.storageKind == rhs.storageKind
            && lhs.retryAfter == rhs.retryAfter
    }

    /// The message.
    public var description: String { message }

    init(_ error: any Error) {
        switch error {
        case let error as FeedError: self = error
        case let error as StorageError:
            self.init(.storage, message: error.description, storageKind: error.kind, underlying: error)
        case let error as any RetryAfterProviding:
            self.init(.source, message: String(describing: error), retryAfter: error.retryAfter, underlying: error)
        default: self.init(.source, message: String(describing: error), underlying: error)
        }
    }
}

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
