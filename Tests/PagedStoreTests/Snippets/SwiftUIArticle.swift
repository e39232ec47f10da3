import Foundation
import PagedStore

#if canImport(SwiftUI)
import SwiftUI
#endif

// The code of the article "Using PagedStore with SwiftUI", compiled: DocumentationSnippetTests checks
// that every Swift block of the article is here, character for character.

// Article: begin sections
struct SectionedTimeline: View {
    @State var model: FeedModel<Post>
    var body: some View {
        List(model.listRows) { row in
            switch row.kind {
            case .item(let post, let index):
                PostRow(post: post)
                    .onAppear { model.rowDidAppear(index) }
            case .placeholder(let index):
                Text("…").onAppear { model.rowDidAppear(index) }
            case .gap(let gap):
                GapRow(gap: gap) { Task { await model.loadGap(gap) } }
            }
        }
        .refreshable { await model.refresh() }
        .task { await model.start() }
    }
}
// Article: end sections

/// A "load more" row for a gap.
struct GapRow: View {
    let gap: FeedGap
    let load: @MainActor () -> Void
    var body: some View {
        Button(gap.state == .loading ? "Loading…" : "Load more", action: load)
    }
}

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
