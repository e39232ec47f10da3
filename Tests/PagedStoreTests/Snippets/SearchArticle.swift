import Foundation
import PagedStore

// The code of the article "Searching the cache", compiled: DocumentationSnippetTests checks that
// every Swift block of the article is here, character for character.

struct Status: FeedItem, Codable {
    static let searchableFields = ["content", "account.display_name"]
    struct Account: Codable {
        var display_name: String
    }
    let id: String
    var content: String
    var account: Account
}

func findStatuses(_ typed: String, in store: FeedStore) throws -> [SearchResult<Status>] {
    try store.search(typed, as: Status.self, in: ["home", "notifications"])
}

func marked(_ result: SearchResult<Status>) -> String {
    // The matched words in brackets; a view sets an attribute on the same ranges instead.
    let (text, ranges) = result.highlighted()
    var marked = text
    for range in ranges.reversed() {
        marked.replaceSubrange(range, with: "[" + text[range] + "]")
    }
    return marked
}

func showResults(of typed: String, in store: FeedStore, on list: ResultsView) async throws {
    let search = try store.searchList(typed, as: Status.self, pageSize: 30)
    for await snapshot in await search.snapshots {
        list.apply(snapshot.change, ids: snapshot.results.map(\.listID))
        if list.nearTheEnd, snapshot.hasMore { await search.loadMore() }
    }
}

func showSearchScreen(_ typed: String, in store: FeedStore, on list: ResultsView) async throws {
    let search = try await store.searchFeed(typed, key: "search") { query in
        StatusSearchSource(query: query)
    }
    Task { await search.start() }
    for await snapshot in await search.snapshots {
        list.apply(snapshot.change, ids: snapshot.entries.map(\.id))
        if list.nearTheEnd, snapshot.hasMore { await search.loadNextPage() }
    }
}

/// What the article's search endpoint stands for: the server's results for a query, by cursor.
struct StatusSearchSource: PageSource {
    let query: String
    func fetch(_ request: PageRequest) async throws -> Page<Status> { Page(items: [], olderCursor: nil) }
}

/// What the article's list view stands for: applies a change to its rows.
struct ResultsView {
    var nearTheEnd: Bool { false }
    func apply(_ change: FeedChange, ids: [String]) {}
}
