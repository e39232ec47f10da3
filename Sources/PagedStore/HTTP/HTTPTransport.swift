import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends one GET at a time per call and streams its body under the source's limits: a size cap
/// counted after decompression, an overall deadline, and redirects that never carry the source's
/// headers to another origin.
///
/// It owns a `URLSession` whose delegate is a ``HTTPTransportDelegate``; the session is invalidated
/// when the transport goes, which also releases the delegate (a session retains its delegate).
final class HTTPTransport: Sendable {
    private let session: URLSession
    private let delegate: HTTPTransportDelegate

    init(options: HTTPSourceOptions) {
        // The app's configuration (a copy of it) keeps its network choices; only the limits, the
        // delegate and the cache below are the source's own. A background configuration cannot run
        // data tasks (Apple platforms raise an exception): the source then uses its own.
        let given = options.sessionConfiguration
        let configuration = given.flatMap { $0.identifier == nil ? $0 : nil } ?? Self.privateConfiguration()
        // FoundationNetworking converts these to Int milliseconds, which traps on inf, nan or 1e300.
        configuration.timeoutIntervalForRequest = Self.seconds(options.idleTimeout, default: 30)
        configuration.timeoutIntervalForResource = Self.seconds(options.requestDeadline, default: 60)
        // Refreshes revalidate with their own validators: a cache would answer them from old bytes.
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        delegate = HTTPTransportDelegate()
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: HTTPDelegateQueue())
    }

    deinit { session.invalidateAndCancel() }

    /// The configuration when the app gives none: credentials go only where the source puts them, so
    /// no cookie jar and no credential store.
    private static func privateConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCredentialStorage = nil
        return configuration
    }

    /// A timeout in seconds that every conversion survives: positive, finite, at most a day.
    static func seconds(_ value: Double, default fallback: Double) -> Double {
        guard value.isFinite, value > 0 else { return fallback }
        return min(value, 86_400)
    }

    /// Sends `request` and returns the final response with its whole body.
    /// - Throws: ``HTTPSourceError`` for a limit, a refused redirect or a transport failure, and
    ///   `CancellationError` when the calling task is cancelled.
    func send(_ request: URLRequest, policy: HTTPExchange.Policy) async throws -> (HTTPURLResponse, Data) {
        try Task.checkCancellation()
        let task = session.dataTask(with: request)
        let exchange = HTTPExchange(policy: policy)
        delegate.register(exchange, for: task.taskIdentifier)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                exchange.start(continuation)
                task.resume()
                let deadline = policy.deadline
                let nanoseconds = Int(Self.seconds(deadline, default: 60) * 1e9)
                HTTPTransportDelegate.cancelling.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) {
                    if exchange.fail(.deadlineExceeded(seconds: deadline)) { task.cancel() }
                }
            }
        } onCancel: {
            HTTPTransportDelegate.cancel(task)
        }
    }
}
