public import Foundation

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// Limits, trust, hooks and the app's network settings of an ``HTTPPageSource``. Every property has a
/// safe default.
///
/// ```swift
/// var options = HTTPSourceOptions()
/// options.maximumResponseBytes = 4 << 20
/// options.prepareRequest = { request in
///     request.setValue("Bearer \(try await tokens.fresh())", forHTTPHeaderField: "Authorization")
/// }
/// ```
public struct HTTPSourceOptions: Sendable {
    /// The largest body accepted, in bytes, counted while it streams in and after decompression; a
    /// larger one stops the request with ``HTTPSourceError/responseTooLarge(limit:)``. Default 16 MiB.
    public var maximumResponseBytes: Int
    /// Seconds a whole request may take, from sending to the last byte, so a server dripping a byte
    /// at a time cannot hold a fetch for ever: ``HTTPSourceError/deadlineExceeded(seconds:)``. Default 60.
    public var requestDeadline: Double
    /// Seconds without a byte before a request fails as a ``HTTPSourceError/transport(_:)`` error. Default 30.
    public var idleTimeout: Double
    /// The longest wait a `Retry-After` or rate-limit reset may ask for, in seconds. Default 3600.
    public var maximumRetryAfter: Double
    /// The most redirects one request follows. Default 5.
    public var maximumRedirects: Int
    /// Other origins (scheme, host and port of each URL) that may receive the source's headers and
    /// may be followed in `Link` headers. By default only the source URL's own origin: a `Link` to
    /// another origin is refused, and a redirect to one is followed without the headers.
    public var trustedOrigins: [URL]
    /// Skip items that fail to decode instead of failing the page; each skip is reported as
    /// ``HTTPSourceEvent/skippedItems(request:count:)``. Default false.
    public var skipUndecodableItems: Bool
    /// Called before each request the source sends (not redirects), to sign it or add a fresh token.
    /// It may suspend; an error it throws fails the fetch unchanged.
    public var prepareRequest: (@Sendable (inout URLRequest) async throws -> Void)?
    /// Receives what the source did that the feed's events do not show: skipped items, `304` answers,
    /// headers withheld from a redirect.
    public var onEvent: (@Sendable (HTTPSourceEvent) -> Void)?
    /// The `URLSession` configuration the source starts from, for what the app decides about its
    /// network: cellular and, on Apple platforms, Low Data Mode and expensive networks
    /// (`allowsCellularAccess`, `allowsConstrainedNetworkAccess`, `allowsExpensiveNetworkAccess`), a
    /// proxy, cookies, `httpAdditionalHeaders`, or `URLProtocol` classes in the app's tests. Nil (the
    /// default) is an ephemeral configuration without cookies or credential storage, and so is a
    /// background configuration (one with an `identifier`), which cannot run the source's data tasks.
    ///
    /// The options keep a copy, so changing the configuration afterwards changes nothing (read it
    /// back to get another copy). On the copy the source keeps what its guarantees need: its own
    /// delegate (the size limit, deadline and redirect rules above), the timeouts of ``idleTimeout``
    /// and ``requestDeadline``, and no URL cache (a refresh revalidates with the validators it
    /// keeps itself). `httpAdditionalHeaders` go with every request the session sends, redirects to
    /// other origins included: a credential belongs in the source's `headers` or ``prepareRequest``,
    /// which stay on trusted origins.
    public var sessionConfiguration: URLSessionConfiguration? {
        get { sessionConfigurationCopy?.copy() }
        set { sessionConfigurationCopy = newValue.map(SessionConfigurationCopy.init) }
    }
    private var sessionConfigurationCopy: SessionConfigurationCopy?

    /// Options with the defaults described on each property.
    public init(
        maximumResponseBytes: Int = 16 << 20, requestDeadline: Double = 60, idleTimeout: Double = 30,
        maximumRetryAfter: Double = 3600, maximumRedirects: Int = 5, trustedOrigins: [URL] = [],
        skipUndecodableItems: Bool = false, sessionConfiguration: URLSessionConfiguration? = nil,
        prepareRequest: (@Sendable (inout URLRequest) async throws -> Void)? = nil,
        onEvent: (@Sendable (HTTPSourceEvent) -> Void)? = nil
    ) {
        self.maximumResponseBytes = maximumResponseBytes
        self.requestDeadline = requestDeadline
        self.idleTimeout = idleTimeout
        self.maximumRetryAfter = maximumRetryAfter
        self.maximumRedirects = maximumRedirects
        self.trustedOrigins = trustedOrigins
        self.skipUndecodableItems = skipUndecodableItems
        self.prepareRequest = prepareRequest
        self.onEvent = onEvent
        self.sessionConfiguration = sessionConfiguration
    }
}

/// A configuration no one else holds: copied in, copied out, never changed in between, so the options
/// stay `Sendable` whether or not the platform's `URLSessionConfiguration` is.
private final class SessionConfigurationCopy: @unchecked Sendable {
    private let configuration: URLSessionConfiguration

    init(_ configuration: URLSessionConfiguration) {
        self.configuration = Self.copy(of: configuration)
    }

    func copy() -> URLSessionConfiguration { Self.copy(of: configuration) }

    private static func copy(of configuration: URLSessionConfiguration) -> URLSessionConfiguration {
        (configuration.copy() as? URLSessionConfiguration) ?? .ephemeral
    }
}

/// What an ``HTTPPageSource`` reports through ``HTTPSourceOptions/onEvent``.
public enum HTTPSourceEvent: Sendable, Equatable {
    /// Items of a page failed to decode and were skipped (``HTTPSourceOptions/skipUndecodableItems``).
    case skippedItems(request: PageRequest, count: Int)
    /// The server answered a refresh `304 Not Modified`: the source returned the page it had.
    case notModified
    /// A redirect led to another origin, so the request went there without the source's headers.
    case headersWithheldFromRedirect
}
