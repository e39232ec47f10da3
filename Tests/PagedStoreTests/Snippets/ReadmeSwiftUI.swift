import PagedStore

#if canImport(SwiftUI)
import SwiftUI
#endif

// The README's SwiftUI example, compiled as written: ReadmeSnippetTests checks that the text between
// the markers is in the README, character for character.

// README: begin SwiftUI
struct TimelineView: View {
    @State var model: FeedModel<Post>
    var body: some View {
        List(model.listRows) { row in
            switch row.kind {
            case .item(let post, let index):
                PostRow(post: post).onAppear { model.rowDidAppear(index) }
            case .placeholder(let index):  // a row outside the loaded window: your choice of placeholder
                ProgressView().onAppear { model.rowDidAppear(index) }
            case .gap(let gap):
                Button("Load more") { Task { await model.loadGap(gap) } }
            }
        }
        .refreshable { await model.refresh() }
        .task { await model.start() }
    }
}
// README: end SwiftUI

/// The app's own row view.
struct PostRow: View {
    let post: Post
    var body: some View { Text(post.id) }
}
