public import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A ``PageSource`` over HTTP for the two common pagination conventions, safe against any server.
///
/// A JSON body with the items and cursors in it, the cursor sent back as a query parameter:
///
/// ```swift
/// let source = HTTPPageSource<Post>(
///     url: URL(string: "https://api.example.com/posts")!,
///     convention: .jsonBody(itemsPath: "data.items", olderCursorPath: "meta.next_cursor"))
/// ```
///
/// Or RFC 8288 `Link` headers (GitHub's and Mastodon's style), the body being the array of items:
///
/// ```swift
/// let source = HTTPPageSource<Status>(
///     url: timelineURL, convention: .linkHeader, headers: ["Authorization": "Bearer \(token)"],
///     decoder: mastodonDecoder)
/// ```
///
/// - `headers` go only to the source URL's origin (scheme, host and port) and the
///   ``HTTPSourceOptions/trustedOrigins``: a `Link` to another origin is refused, a redirect to one is
///   followed without them.
/// - A body is limited in size while it streams (after decompression) and a request in time, by
///   ``HTTPSourceOptions``.
/// - A refresh is conditional: the first page's `ETag` / `Last-Modified` go back as `If-None-Match` /
///   `If-Modified-Since`, and a `304` returns the page the source already had.
/// - Failures are ``HTTPSourceError``s, kept whole in ``FeedError/underlying``; ``Feed/retry()`` waits
///   out `Retry-After` and rate-limit resets. Cancelling the fetching task cancels the request.
public struct HTTPPageSource<Item: FeedItem>: PageSource {
    /// How the server pages.
    public enum Convention: Sendable {
        /// A JSON object holding the items and the cursors at dotted key paths (`data.items`,
        /// `meta.next_cursor`). The older-side cursor is sent as `cursorParameter`, the newer-side one
        /// as `newerCursorParameter`.
        case jsonBody(
            itemsPath: String = "items", olderCursorPath: String = "next_cursor",
            newerCursorPath: String? = "previous_cursor", cursorParameter: String = "cursor",
            newerCursorParameter: String = "since")
        /// A JSON array of items, with `Link` headers whose `rel="next"` and `rel="prev"` URLs are the
        /// cursors: a next page fetches the `next` URL as it is.
        case linkHeader
    }

    /// The first page's URL.
    public let url: URL
    /// How the server pages.
    public let convention: Convention
    /// Headers sent with every request to the source's origin (authorization, for example); never
    /// to another origin unless it is trusted.
    public let headers: [String: String]
    /// Limits, trusted origins and hooks.
    public let options: HTTPSourceOptions
    let decodeItem: @Sendable (Data) throws -> Item
    private let transport: HTTPTransport
    private let conditional = ConditionalCache<Item>()
    private let trusted: Set<HTTPOrigin>

    /// A source whose items decode with `decode` from each item's JSON.
    ///
    /// - Parameters:
    ///   - url: The first page's URL (`http` or `https`).
    ///   - convention: How the server pages.
    ///   - headers: Headers for the source's own origin.
    ///   - options: Limits, trusted origins and hooks.
    ///   - decode: Decodes one item from its JSON object.
    public init(
        url: URL, convention: Convention, headers: [String: String] = [:], options: HTTPSourceOptions = .init(),
        decode: @escaping @Sendable (Data) throws -> Item
    ) {
        self.url = url
        self.convention = convention
        self.headers = headers
        self.options = options
        self.decodeItem = decode
        self.transport = HTTPTransport(options: options)
        self.trusted = Set(([url] + options.trustedOrigins).compactMap(HTTPOrigin.init))
    }

    /// Fetches one page.
    /// - Throws: ``HTTPSourceError``, an error of ``HTTPSourceOptions/prepareRequest`` as it was
    ///   thrown, or `CancellationError` when the task was cancelled.
    ///
    /// `@concurrent`: it decodes whole responses after the network wait, work that must not hold the
    /// store's thread, where the feed's other storage work waits behind it.
    @concurrent public func fetch(_ request: PageRequest) async throws -> Page<Item> {
        let target = try requestURL(for: request)
        var urlRequest = URLRequest(url: target)
        urlRequest.setValue("application/json", forHTTPHeaderField: "Accept")
        for (name, value) in headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        let validated = request == .first ? conditional.current : nil
        if let validated {
            urlRequest.setValue(validated.etag, forHTTPHeaderField: "If-None-Match")
            urlRequest.setValue(validated.lastModified, forHTTPHeaderField: "If-Modified-Since")
        }
        try await options.prepareRequest?(&urlRequest)
        // The hook may have pointed the request elsewhere: the headers still go only to trusted origins.
        guard let sent = urlRequest.url, let origin = HTTPOrigin(sent), trusted.contains(origin) else {
            throw HTTPSourceError.refused("the request hook pointed the request to another origin")
        }
        let (response, data) = try await transport.send(urlRequest, policy: policy)
        if response.statusCode == 304, let validated {
            options.onEvent?(.notModified)
            return validated.page
        }
        guard (200..<300).contains(response.statusCode), response.statusCode != 206 else {
            let wait = RetryAfter.seconds(
                status: response.statusCode, headers: { response.value(forHTTPHeaderField: $0) },
                maximum: options.maximumRetryAfter)
            throw HTTPSourceError.status(
                code: response.statusCode, retryAfter: wait.seconds, rateLimitReset: wait.reset)
        }
        let page = try page(from: data, links: response.value(forHTTPHeaderField: "Link"), request: request)
        if request == .first {
            conditional.store(
                page, etag: response.value(forHTTPHeaderField: "ETag"),
                lastModified: response.value(forHTTPHeaderField: "Last-Modified"))
        }
        return page
    }

    private var policy: HTTPExchange.Policy {
        var withheld: (@Sendable () -> Void)?
        if let onEvent = options.onEvent { withheld = { onEvent(.headersWithheldFromRedirect) } }
        return HTTPExchange.Policy(
            maximumBytes: max(options.maximumResponseBytes, 0), deadline: options.requestDeadline,
            maximumRedirects: options.maximumRedirects, trustedOrigins: trusted, onHeadersWithheld: withheld)
    }

    // MARK: - Requests

    func requestURL(for request: PageRequest) throws -> URL {
        switch (convention, request) {
        case (_, .first):
            return url
        case (.linkHeader, .olderThan(let cursor)), (.linkHeader, .newerThan(let cursor)):
            guard let next = URL(string: cursor, relativeTo: url)?.absoluteURL else {
                throw HTTPSourceError.invalidResponse("a Link cursor is not a URL")
            }
            guard let origin = HTTPOrigin(next) else { throw HTTPSourceError.refused("a Link to a non-HTTP(S) URL") }
            guard trusted.contains(origin) else { throw HTTPSourceError.refused("a Link to another origin") }
            return next
        case (.jsonBody(_, _, _, let olderParameter, _), .olderThan(let cursor)):
            return try Self.url(url, adding: olderParameter, cursor)
        case (.jsonBody(_, _, _, _, let newerParameter), .newerThan(let cursor)):
            return try Self.url(url, adding: newerParameter, cursor)
        }
    }

    /// `url` with `name=value` added to its query, every character encoded as a query needs.
    private static func url(_ url: URL, adding name: String, _ value: String) throws -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            throw HTTPSourceError.invalidResponse("the source URL cannot carry a cursor")
        }
        components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: name, value: value)]
        guard let withCursor = components.url else {
            throw HTTPSourceError.invalidResponse("the cursor cannot go in a URL")
        }
        return withCursor
    }
}

extension HTTPPageSource where Item: Decodable {
    /// A source whose items decode with `decoder`: configure it for the API (GitHub's snake_case keys,
    /// Mastodon's fractional-second dates).
    ///
    /// The cache stores the app's model encoded by the feed's ``ItemCodec``, not the server's JSON:
    /// the model's own `Codable` must round-trip (see <doc:RealAPIs>).
    public init(
        url: URL, convention: Convention, headers: [String: String] = [:], decoder: JSONDecoder = JSONDecoder(),
        options: HTTPSourceOptions = .init()
    ) {
        self.init(url: url, convention: convention, headers: headers, options: options) { data in
            try decoder.decode(Item.self, from: data)
        }
    }
}
