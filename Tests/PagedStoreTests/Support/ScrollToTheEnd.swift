import PagedStore
import Testing

/// Fills each gap and loads each next page until the feed ends (bounded), recording a failed next page.
func scrollToTheEnd(_ feed: Feed<Post>) async throws {
    for _ in 0..<100 {
        let snapshot = await feed.snapshot
        if let gap = snapshot.gaps.first {
            await feed.loadGap(gap)
            continue
        }
        if snapshot.nextPage == .endReached { return }
        await feed.loadNextPage()
        if case .failed(let error) = await feed.snapshot.nextPage {
            Issue.record("next page failed: \(error)")
            return
        }
    }
}
