import Foundation

/// What the server made of a queued edit, as its handler reports it (see ``Outbox``).
///
/// ```swift
/// switch response.statusCode {
/// case 200..<300: return .confirmed
/// case 400..<500 where response.statusCode != 429: return .rejected(reason: "HTTP \(response.statusCode)")
/// default: return .retryable("HTTP \(response.statusCode)", retryAfterHeader: response.value(forHTTPHeaderField: "Retry-After"))
/// }
/// ```
public enum OutboxOutcome: Sendable, Equatable {
    /// The server applied the edit (or had applied it under the same idempotency key): the edit is
    /// no longer pending, and the next server copy of the item wins.
    case confirmed
    /// The server refused the edit for good (a 4xx the app maps here, or an item it no longer has):
    /// the edit is rolled back, written and emitted with index paths, as a failed closure call is.
    case rejected(reason: String)
    /// The send failed for now (offline, a 5xx, a 429): the edit stays, its failure is counted with
    /// `reason`, and it is sent again after `retryAfter` when the server named a wait, after a
    /// backoff otherwise, or at once on ``Outbox/resume()``.
    case retryable(reason: String, retryAfter: Duration?)

    /// A retryable outcome that waits as the server's `Retry-After` header says (delta-seconds or
    /// an HTTP-date; anything else, or no header, leaves the wait to the backoff).
    public static func retryable(_ reason: String, retryAfterHeader: String?) -> OutboxOutcome {
        let seconds = retryAfterHeader.flatMap { RetryAfter.retryAfterSeconds($0, now: Date()) }
        let wait = seconds.flatMap { $0.isFinite && $0 >= 0 ? Duration.seconds(min($0, 86_400)) : nil }
        return .retryable(reason: reason, retryAfter: wait)
    }
}
