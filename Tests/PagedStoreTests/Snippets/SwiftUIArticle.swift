import Foundation
import PagedStore

#if canImport(SwiftUI)
import SwiftUI
#endif

// The code of the article "Using PagedStore with SwiftUI", compiled: DocumentationSnippetTests checks
// that every Swift block of the article is here, character for character.

// Article: begin like
struct LikeButton: View {
    let post: Post
    let feed: Feed<Post>
    let api: API
    var body: some View {
        Button("Like") {
            Task {
                // Shown at once; rolled back (and the error thrown) if the call fails.
                try? await feed.edit(id: post.id) {
                    $0.revision += 1
                } commit: {
                    try await api.like($0.id)
                }
            }
        }
    }
}
// Article: end like

// Article: begin model
@MainActor func makeModel(store: FeedStore, source: some PageSource<Post>) async throws -> FeedModel<Post> {
    let feed = try store.feed("home", source: source)
    return await FeedModel(feed: feed)  // starts from the cached rows, before any fetch
}
// Article: end model
