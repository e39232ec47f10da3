import Foundation
import PagedStore

// The code of the article "Offline edits", compiled: DocumentationSnippetTests checks that every
// Swift block of the article is here, character for character.

/// The app's networking, as the article's handler calls it.
protocol TimelineAPI: Sendable {
    /// Likes or unlikes a post; returns the HTTP status.
    func like(_ id: String, liked: Bool, idempotencyKey: UUID) async throws -> Int
}

struct LikeArgument: Codable, Sendable {
    let liked: Bool
}

func registerHandlers(on store: FeedStore, api: some TimelineAPI) async {
    await store.outbox.register("like", as: LikeArgument.self) { edit in
        let status = try await api.like(edit.itemID, liked: edit.argument.liked, idempotencyKey: edit.idempotencyKey)
        switch status {
        case 200..<300: return .confirmed
        case 404, 409, 422: return .rejected(reason: "HTTP \(status)")
        default: return .retryable(reason: "HTTP \(status)", retryAfter: nil)
        }
    }
}

func like(_ post: Post, in feed: Feed<Post>) async throws {
    try await feed.enqueue("like", id: post.id, argument: LikeArgument(liked: true)) { post in
        post.revision += 1
    }
}

func toggleLike(of post: Post, liked: Bool, in feed: Feed<Post>) async throws {
    try await feed.enqueue("like", id: post.id, argument: LikeArgument(liked: liked)) { post in
        post.revision += liked ? 1 : -1
    }
}

func connectivityCameBack(_ store: FeedStore) async {
    await store.outbox.resume()
}

func showBadge(of store: FeedStore, show: (String?) -> Void) async {
    for await status in await store.outbox.states {
        show(status.count == 0 ? nil : "\(status.count) changes waiting to sync")
    }
}
