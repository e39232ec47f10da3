import Foundation
import PagedStore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The "Real APIs" article's examples, verbatim: `HTTPRealAPIsTests` checks that every Swift block of
// the article appears in this file, and runs them against loopback servers that answer as the real
// APIs do.

// MARK: - GitHub

/// A GitHub issue, with Swift names.
struct GitHubIssue: FeedItem, Codable {
    let id: Int
    let number: Int
    let title: String
    let createdAt: Date
}

func gitHubIssues(url: URL, token: String) -> HTTPPageSource<GitHubIssue> {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    decoder.dateDecodingStrategy = .iso8601
    return HTTPPageSource(
        url: url, convention: .linkHeader,
        headers: ["Authorization": "Bearer \(token)", "X-GitHub-Api-Version": "2022-11-28"],
        decoder: decoder, options: HTTPSourceOptions(skipUndecodableItems: true))
}

func describe(_ error: FeedError) -> String {
    switch error.httpError {
    case .status(code: 401, _, _)?:
        return "Sign in again."
    case .status(code: 403, _, let reset?)?, .status(code: 429, _, let reset?)?:
        return "Rate limited until \(reset.formatted(date: .omitted, time: .shortened))."
    case let http? where http.isRetryable:
        return "The server is busy; retrying soon."
    default:
        return error.message
    }
}

// MARK: - Mastodon

/// A Mastodon status.
struct MastodonStatus: FeedItem, Codable {
    let id: String
    let createdAt: Date
    let content: String
}

func mastodonHome(url: URL, token: String) -> HTTPPageSource<MastodonStatus> {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    decoder.dateDecodingStrategy = .custom { decoder in
        let text = try decoder.singleValueContainer().decode(String.self)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        guard let date = formatter.date(from: text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "not an ISO 8601 date"))
        }
        return date
    }
    return HTTPPageSource(
        url: url, convention: .linkHeader, headers: ["Authorization": "Bearer \(token)"], decoder: decoder)
}

func showHome(_ feed: Feed<MastodonStatus>) async {
    await feed.refresh()
    if case .error(let error) = await feed.snapshot.content, error.httpStatus == 206 {
        await feed.retry()  // the home feed was regenerating
    }
}

// MARK: - A JSON cursor API

/// A post of an API that pages with cursors in its JSON body.
struct CursorPost: FeedItem, Codable {
    let id: String
    let text: String
}

func cursorPosts(url: URL) -> HTTPPageSource<CursorPost> {
    HTTPPageSource(
        url: url,
        convention: .jsonBody(
            itemsPath: "data", olderCursorPath: "paging.next", newerCursorPath: "paging.prev",
            cursorParameter: "after", newerCursorParameter: "before"))
}

// MARK: - The app's network settings

func cursorPostsOffCellular(url: URL) -> HTTPPageSource<CursorPost> {
    let configuration = URLSessionConfiguration.default
    configuration.allowsCellularAccess = false
    configuration.httpAdditionalHeaders = ["User-Agent": "ExampleApp/1.0"]
    return HTTPPageSource(
        url: url,
        convention: .jsonBody(
            itemsPath: "data", olderCursorPath: "paging.next", newerCursorPath: "paging.prev",
            cursorParameter: "after", newerCursorParameter: "before"),
        options: HTTPSourceOptions(sessionConfiguration: configuration))
}
