public import Foundation

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// A ``PageSource`` over HTTP for the two common pagination conventions.
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
/// let source = HTTPPageSource<Status>(url: timelineURL, convention: .linkHeader)
/// ```
///
/// Failures are ``HTTPSourceError``s: a status outside 200–299 (with its `Retry-After`, which
/// ``Feed/retry()`` waits out), a response of the wrong shape (naming what is missing), or a transport
/// failure. Cancelling the fetching task cancels the request.
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
    /// Headers sent with every request (authorization, for example).
    public let headers: [String: String]
    private let session: URLSession
    private let decodeItem: @Sendable (Data) throws -> Item

    /// A source whose items decode with `decode` from each item's JSON.
    public init(
        url: URL, convention: Convention, headers: [String: String] = [:], session: URLSession = .shared,
        decode: @escaping @Sendable (Data) throws -> Item
    ) {
        self.url = url
        self.convention = convention
        self.headers = headers
        self.session = session
        self.decodeItem = decode
    }

    /// Fetches one page.
    /// - Throws: ``HTTPSourceError``, or `CancellationError` when the task was cancelled.
    public func fetch(_ request: PageRequest) async throws -> Page<Item> {
        var urlRequest = URLRequest(url: try requestURL(for: request))
        urlRequest.setValue("application/json", forHTTPHeaderField: "Accept")
        for (name, value) in headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: urlRequest)
        } catch {
            try Task.checkCancellation()
            throw HTTPSourceError.transport((error as NSError).localizedDescription)
        }
        guard let http = response as? HTTPURLResponse else {
            throw HTTPSourceError.invalidResponse("not an HTTP response")
        }
        guard (200..<300).contains(http.statusCode) else {
            let retryAfter = http.value(forHTTPHeaderField: "Retry-After").flatMap {
                Double($0.trimmingCharacters(in: .whitespaces))
            }
            throw HTTPSourceError.status(code: http.statusCode, retryAfter: retryAfter)
        }
        return try page(from: data, links: http.value(forHTTPHeaderField: "Link"))
    }

    // MARK: - Requests and responses

    func requestURL(for request: PageRequest) throws -> URL {
        switch (convention, request) {
        case (_, .first):
            return url
        case (.linkHeader, .olderThan(let cursor)), (.linkHeader, .newerThan(let cursor)):
            guard let next = URL(string: cursor, relativeTo: url) else {
                throw HTTPSourceError.invalidResponse("a Link cursor is not a URL")
            }
            return next.absoluteURL
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

    func page(from data: Data, links: String?) throws -> Page<Item> {
        let body: Any
        do {
            body = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw HTTPSourceError.invalidResponse("the body is not JSON")
        }
        switch convention {
        case .linkHeader:
            guard let array = body as? [Any] else {
                throw HTTPSourceError.invalidResponse("the body is not a JSON array of items")
            }
            let relations = links.map(LinkHeader.relations) ?? [:]
            return Page(
                items: try decode(array), olderCursor: relations["next"],
                newerCursor: relations["prev"] ?? relations["previous"])
        case .jsonBody(let itemsPath, let olderPath, let newerPath, _, _):
            guard let array = Self.value(at: itemsPath, in: body) as? [Any] else {
                throw HTTPSourceError.invalidResponse("no array of items at \"\(itemsPath)\"")
            }
            return Page(
                items: try decode(array), olderCursor: try Self.cursor(at: olderPath, in: body),
                newerCursor: try newerPath.flatMap { try Self.cursor(at: $0, in: body) })
        }
    }

    private func decode(_ array: [Any]) throws -> [Item] {
        try array.enumerated().map { index, element in
            guard JSONSerialization.isValidJSONObject(element),
                let data = try? JSONSerialization.data(withJSONObject: element, options: [.sortedKeys])
            else { throw HTTPSourceError.invalidResponse("item \(index) is not a JSON object") }
            do {
                return try decodeItem(data)
            } catch {
                throw HTTPSourceError.invalidResponse("item \(index) does not decode: \(error)")
            }
        }
    }

    /// The value at a dotted key path (`meta.next_cursor`).
    static func value(at path: String, in body: Any) -> Any? {
        path.split(separator: ".").reduce(Optional(body)) { value, key in (value as? [String: Any])?[String(key)] }
    }

    /// A cursor: a string or a number at the path, nil for JSON null or a missing key (the end).
    static func cursor(at path: String, in body: Any) throws -> String? {
        switch value(at: path, in: body) {
        case nil, is NSNull: return nil
        case let text as String: return text
        case let number as NSNumber: return number.stringValue
        default: throw HTTPSourceError.invalidResponse("the cursor at \"\(path)\" is neither a string nor a number")
        }
    }
}

extension HTTPPageSource where Item: Decodable {
    /// A source whose items decode with `JSONDecoder`.
    public init(url: URL, convention: Convention, headers: [String: String] = [:], session: URLSession = .shared) {
        self.init(url: url, convention: convention, headers: headers, session: session) { data in
            try JSONDecoder().decode(Item.self, from: data)
        }
    }
}
