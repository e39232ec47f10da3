import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request in flight: its body so far, its first failure, and the caller waiting for it.
///
/// The session's delegate queue and the deadline timer both touch it, so every access holds `lock`.
final class HTTPExchange: @unchecked Sendable {
    /// What the exchange enforces.
    struct Policy: Sendable {
        /// The largest body, in bytes.
        var maximumBytes: Int
        /// Seconds the whole exchange may take.
        var deadline: Double
        /// The most redirects followed.
        var maximumRedirects: Int
        /// Origins that may receive the request's headers.
        var trustedOrigins: Set<HTTPOrigin>
        /// Told when a redirect went to another origin without the headers.
        var onHeadersWithheld: (@Sendable () -> Void)?
    }

    let policy: Policy
    private let lock = NSLock()
    private var body = Data()
    private var response: HTTPURLResponse?
    private var failure: HTTPSourceError?
    private var redirects = 0
    private var continuation: CheckedContinuation<(HTTPURLResponse, Data), any Error>?
    private var finished = false

    init(policy: Policy) { self.policy = policy }

    func start(_ continuation: CheckedContinuation<(HTTPURLResponse, Data), any Error>) {
        lock.withLock { self.continuation = continuation }
    }

    /// Records the first failure; returns true when the request should now be cancelled.
    @discardableResult
    func fail(_ error: HTTPSourceError) -> Bool {
        lock.withLock {
            guard !finished, failure == nil else { return false }
            failure = error
            body = Data()  // a stopped body is never read: free it at once
            return true
        }
    }

    /// Accepts the response head; returns true when the request must now be cancelled (its declared
    /// length is over the limit).
    func receive(_ response: URLResponse) -> Bool {
        guard let http = response as? HTTPURLResponse else {
            return fail(.invalidResponse("not an HTTP response"))
        }
        lock.withLock { self.response = http }
        if let length = http.value(forHTTPHeaderField: "Content-Length").flatMap({ Int64($0) }),
            length > Int64(policy.maximumBytes)
        {
            return fail(.responseTooLarge(limit: policy.maximumBytes))
        }
        return false
    }

    /// Appends a chunk; returns true when the request must now be cancelled (once: the chunk that
    /// took the body over the limit). Chunks after a failure are dropped.
    func receive(_ data: Data) -> Bool {
        let over = lock.withLock { () -> Bool in
            guard failure == nil, !finished else { return false }
            // Also a first chunk larger than the whole limit (a body that arrives in one piece).
            guard data.count <= policy.maximumBytes, body.count <= policy.maximumBytes - data.count else {
                return true
            }
            body.append(data)
            return false
        }
        return over && fail(.responseTooLarge(limit: policy.maximumBytes))
    }

    /// Counts a redirect; returns false when one more is too many.
    func countRedirect() -> Bool {
        let count = lock.withLock { () -> Int in
            redirects += 1
            return redirects
        }
        guard count <= policy.maximumRedirects else {
            fail(.refused("more than \(policy.maximumRedirects) redirects"))
            return false
        }
        return true
    }

    /// Ends the exchange with the task's outcome, once.
    func complete(error: (any Error)?) {
        let (continuation, result) = lock.withLock {
            () -> (CheckedContinuation<(HTTPURLResponse, Data), any Error>?, Result<(HTTPURLResponse, Data), any Error>)
            in
            finished = true
            let continuation = self.continuation
            self.continuation = nil
            if let failure { return (continuation, .failure(failure)) }
            if let error { return (continuation, .failure(Self.transportError(error))) }
            guard let response else {
                return (continuation, .failure(HTTPSourceError.invalidResponse("no HTTP response")))
            }
            let result = (response, body)
            body = Data()
            return (continuation, .success(result))
        }
        continuation?.resume(with: result)
    }

    /// A transport failure as a short sentence: never the URL (it may carry a cursor or a token).
    static func transportError(_ error: any Error) -> any Error {
        guard let error = error as? URLError else {
            return HTTPSourceError.transport("the connection failed")
        }
        switch error.code {
        case .cancelled: return CancellationError()
        case .timedOut: return HTTPSourceError.transport("the server sent nothing for too long")
        case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed:
            return HTTPSourceError.transport("could not connect to the server")
        case .networkConnectionLost: return HTTPSourceError.transport("the connection was lost")
        case .notConnectedToInternet: return HTTPSourceError.transport("no network connection")
        case .unsupportedURL: return HTTPSourceError.refused("not an HTTP(S) URL")
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot:
            return HTTPSourceError.transport("the secure connection failed")
        default: return HTTPSourceError.transport("URL error \(error.code.rawValue)")
        }
    }
}
