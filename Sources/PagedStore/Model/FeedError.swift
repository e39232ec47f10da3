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
