public import Foundation

/// Why an ``HTTPPageSource`` fetch failed, typed so an app can act on it without parsing text.
///
/// ```swift
/// switch feedError.httpError {
/// case .status(code: 401, _, _)?: showSignIn()
/// case let error? where error.isRetryable: scheduleRetry(after: feedError.retryAfter)
/// default: showError(feedError.message)
/// }
/// ```
///
/// No case carries a cursor, a header value or the body: descriptions are safe to log.
public enum HTTPSourceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server answered with a status that is not a page: outside 200–299, a `206` (Mastodon's
    /// "feed regenerating"), or a `304` to a request that was not conditional.
    ///
    /// `retryAfter` is how long to wait, in seconds: the later of `Retry-After` and, for a rate-limit
    /// answer, the rate-limit reset, clamped to ``HTTPSourceOptions/maximumRetryAfter``. `rateLimitReset`
    /// is when the server said the rate limit resets (`X-RateLimit-Reset`), for a rate-limit answer.
    case status(code: Int, retryAfter: Double?, rateLimitReset: Date?)
    /// The body could not be decoded: not JSON, the wrong shape, or an item the model rejects. The
    /// message names what was missing or wrong.
    case invalidResponse(String)
    /// The request could not be made or completed (no network, a refused connection, an idle timeout).
    case transport(String)
    /// The body grew past ``HTTPSourceOptions/maximumResponseBytes`` (counted after decompression), so
    /// the request was stopped.
    case responseTooLarge(limit: Int)
    /// The response did not complete within ``HTTPSourceOptions/requestDeadline`` seconds.
    case deadlineExceeded(seconds: Double)
    /// The source refused to follow where the server pointed: a `Link` or redirect to a non-HTTP(S)
    /// URL, a `Link` to another origin, or too many redirects.
    case refused(String)

    /// One sentence for people and logs; never the cursor, a header value or the body.
    public var description: String {
        switch self {
        case .status(let code, let retryAfter, _):
            "The server answered HTTP \(code)" + (retryAfter.map { "; retry after \(Self.seconds($0))" } ?? "")
        case .invalidResponse(let message): "The server's response is not the expected shape: \(message)"
        case .transport(let message): "The request failed: \(message)"
        case .responseTooLarge(let limit): "The server's response is larger than the limit of \(limit) bytes"
        case .deadlineExceeded(let seconds): "The server did not answer within \(Self.seconds(seconds))"
        case .refused(let message): "The request was refused: \(message)"
        }
    }

    /// The HTTP status of a ``status(code:retryAfter:rateLimitReset:)`` error.
    public var statusCode: Int? {
        if case .status(let code, _, _) = self { return code }
        return nil
    }

    /// Whether the same request may succeed later: a rate limit (`429`, or a `403` with a rate-limit
    /// reset), a `206`, `408`, `425` or a `5xx` status, a transport failure or a missed deadline.
    public var isRetryable: Bool {
        switch self {
        case .status(let code, _, let reset):
            [206, 408, 425, 429].contains(code) || (500...599).contains(code) || reset != nil
        case .transport, .deadlineExceeded: true
        case .invalidResponse, .responseTooLarge, .refused: false
        }
    }

    /// Whether the failure is the network's (the request did not complete), not the server's answer.
    public var isTransport: Bool {
        switch self {
        case .transport, .deadlineExceeded: true
        default: false
        }
    }

    /// Whether the failure is the body's: it arrived but could not be decoded into a page.
    public var isDecoding: Bool {
        if case .invalidResponse = self { return true }
        return false
    }

    /// Whole seconds for a message, without trapping on any value (they are clamped when parsed, but
    /// an app can build these cases itself).
    static func seconds(_ value: Double) -> String {
        guard value.isFinite, value >= 0, value < 1e9 else { return "a while" }
        return "\(Int(value.rounded(.up))) s"
    }
}

/// An error that says how long to wait before retrying: ``Feed/retry()`` honours it.
public protocol RetryAfterProviding: Error {
    /// Seconds to wait before retrying, if the server said.
    var retryAfter: Double? { get }
}

extension HTTPSourceError: RetryAfterProviding {
    /// Seconds to wait before retrying a status error: its `Retry-After` or rate-limit reset, whichever
    /// is later, already clamped.
    public var retryAfter: Double? {
        if case .status(_, let retryAfter, _) = self { return retryAfter }
        return nil
    }
}
