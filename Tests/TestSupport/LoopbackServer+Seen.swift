public import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request the loopback server received, with the headers a test checks for leaks or looks for.
public struct SeenRequest: Decodable, Sendable {
    /// The path, without the query.
    public let path: String
    /// The `Host` header: which origin the request was sent to.
    public let host: String?
    /// The `Authorization` header, if one was sent.
    public let authorization: String?
    /// The `If-None-Match` header, if one was sent.
    public let ifNoneMatch: String?
    /// The `X-Signed` header a request hook adds in the tests.
    public let xSigned: String?
    /// The `User-Agent` header.
    public let userAgent: String?

    enum CodingKeys: String, CodingKey {
        case path, host, authorization
        case ifNoneMatch = "if_none_match"
        case xSigned = "x_signed"
        case userAgent = "user_agent"
    }
}

extension LoopbackServer {
    /// Every request the server received so far (not counting this one), oldest first.
    public func seen() async throws -> [SeenRequest] {
        let (data, _) = try await URLSession.shared.data(from: url("seen"))
        return try JSONDecoder().decode([SeenRequest].self, from: data).filter {
            $0.path != "/seen" && $0.path != "/arrived"
        }
    }

    /// Calls a control route (`mastodon/home/reset`, `…/publish`): changes what the server answers next.
    public func control(_ path: String, _ query: [String: String]) async throws {
        _ = try await URLSession.shared.data(from: url(path, query))
    }

    /// A route's URL with a query, every value encoded.
    public func url(_ path: String, _ query: [String: String]) -> URL {
        var components = URLComponents(url: url(path), resolvingAgainstBaseURL: false)
        components?.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        return components?.url ?? url(path)
    }
}
