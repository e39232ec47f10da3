/// Why an ``HTTPPageSource`` fetch failed.
public enum HTTPSourceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server answered with a status outside 200–299. `retryAfter` is its `Retry-After`, in seconds,
    /// which ``Feed/retry()`` waits out.
    case status(code: Int, retryAfter: Double?)
    /// The response is not the expected shape; the message names what was missing or wrong.
    case invalidResponse(String)
    /// The request could not be made or completed (no network, a refused connection, a timeout).
    case transport(String)

    /// One sentence for people and logs; never the cursor or the body.
    public var description: String {
        switch self {
        case .status(let code, let retryAfter):
            "The server answered HTTP \(code)" + (retryAfter.map { "; retry after \(Int($0)) s" } ?? "")
        case .invalidResponse(let message): "The server's response is not the expected shape: \(message)"
        case .transport(let message): "The request failed: \(message)"
        }
    }
}

/// An error that says how long to wait before retrying: ``Feed/retry()`` honours it.
public protocol RetryAfterProviding: Error {
    /// Seconds to wait before retrying, if the server said.
    var retryAfter: Double? { get }
}

extension HTTPSourceError: RetryAfterProviding {
    /// The `Retry-After` of a status error.
    public var retryAfter: Double? {
        if case .status(_, let retryAfter) = self { return retryAfter }
        return nil
    }
}
