import Foundation
import PagedStore
import TestSupport
import Testing

/// Scrolls a feed to its end as a reader would (bounded): fills each gap from its top, dismisses a
/// gap the server cannot fill (what the app does; the checks after the scroll prove no server item
/// was behind it), and loads next pages until the list has ended. A failed next page is recorded as
/// an issue.
///
/// - `refreshingFirst`: pulls to refresh before scrolling.
/// - `retryingFailures`: a failed next page is retried instead (a server that fails on purpose, or a
///   page-numbered list that shifted by more than the policy's pages without new items): the
///   reader's retry goes on from the saved cursor.
/// - `fillingGapsFromBothEnds`: alternates the end a gap is filled from where the server can fill
///   from the bottom (a `min_id` server, as ``TimelineModel``), so that closing a gap from its bottom
///   is proven to skip nothing.
///
/// Set `PAGEDSTORE_MODEL_TRACE` to print each step.
func scrollToTheEnd(
    _ feed: Feed<Post>, _ context: String = "", refreshingFirst: Bool = false, retryingFailures: Bool = false,
    fillingGapsFromBothEnds: Bool = false
) async throws {
    if refreshingFirst { await feed.refresh() }
    for attempt in 0..<200 {
        let snapshot = await feed.snapshot
        if TestEnvironment.tracesModels {
            print("scroll \(snapshot.ids) gaps \(snapshot.gaps.map { "\($0.afterRow) \($0.state)" })")
        }
        if let gap = snapshot.gaps.first(where: { $0.state == .unfillable }) {
            await feed.dismissGap(gap)
        } else if let gap = snapshot.gaps.first {
            await feed.loadGap(
                gap,
                from: fillingGapsFromBothEnds && gap.canFillFromBottom && attempt.isMultiple(of: 2) ? .bottom : .top)
        } else if case .failed(let error) = snapshot.nextPage {
            guard retryingFailures else {
                Issue.record("\(context): next page failed: \(error)")
                return
            }
            await feed.retry()
        } else if snapshot.nextPage != .endReached {
            await feed.loadNextPage()
        } else {
            return
        }
    }
    let snapshot = await feed.snapshot
    Issue.record("\(context): scrolling to the end did not end: \(snapshot.gaps), \(snapshot.nextPage)")
}
