import Foundation
import PagedStore

// The code of the article "One item in many feeds", compiled: DocumentationSnippetTests checks that
// every Swift block of the article is here, character for character.

/// The app's networking, as the article's edit calls it.
private enum SharingAPI {
    static func like(_ id: String) async throws {}
}

private let api = SharingAPI.self

struct TimelinePost: FeedItem, Codable {
    static let sharedItemType: String? = "post"
    let id: String
    var isLiked: Bool
    var likes: Int
}

func like(_ post: TimelinePost, in home: Feed<TimelinePost>) async throws {
    // The profile and search lists holding the post show it liked too, at their own rows.
    try await home.edit(id: post.id) { post in
        post.isLiked = true
        post.likes += 1
    } commit: { post in
        try await api.like(post.id)
    }
}

func postWasDeleted(_ id: String, in store: FeedStore) throws {
    try store.remove(id: id, of: TimelinePost.self)
}
