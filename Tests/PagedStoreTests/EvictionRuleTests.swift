import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// What a store over its budget evicts, alone: whole feeds opened longest ago first, then the oldest
/// pages of the largest feeds, never an open list's loaded rows or a pending edit.
@Suite(.limit(minutes: 3)) struct EvictionRuleTests {
    let now = Date(timeIntervalSince1970: 1_000_000)
    /// 1,000 bytes, whose target (a tenth under) is 900.
    let budget = StoreBudget(maxBytes: 1_000)

    func feed(
        _ key: String, bytes: Int64 = 100, rows: Int = 10, openedSecondsAgo: TimeInterval? = 60,
        isOpen: Bool = false, pendingEdits: Bool = false, keptRows: Int = 0, pages: [Int] = []
    ) -> EvictionRule.Feed {
        EvictionRule.Feed(
            key: key, rows: rows, bytes: bytes, openedAt: openedSecondsAgo.map { now - $0 }, isOpen: isOpen,
            hasPendingEdits: pendingEdits, keptRows: keptRows, pages: chain(pages))
    }

    /// A chain of next pages of these row counts: page n was asked with page n-1's older cursor.
    func chain(_ rows: [Int]) -> [PageRecord] {
        rows.enumerated().map { index, count in
            PageRecord(
                pageNo: Int64(index), request: index == 0 ? .first : .older,
                requestCursor: index == 0 ? nil : "c\(index - 1)", olderCursor: "c\(index)", newerCursor: nil,
                fetchedAt: Date(timeIntervalSince1970: 0), rowCount: count)
        }
    }

    func evicted(_ feeds: [EvictionRule.Feed], used: Int64, budget: StoreBudget? = nil) -> [String] {
        EvictionRule.evictions(feeds, usedBytes: used, budget: budget ?? self.budget, now: now).steps.compactMap {
            if case .evict(let key, _) = $0 { return key }
            return nil
        }
    }

    @Test func nothingIsEvictedWhileTheFileIsWithinItsTarget() {
        let feeds = [feed("a"), feed("b")]
        #expect(evicted(feeds, used: 900).isEmpty)
        #expect(EvictionRule.evictions(feeds, usedBytes: 900, budget: budget, now: now).stillToFree <= 0)
    }

    @Test func theFeedsOpenedLongestAgoGoFirstNeverOpenedBeforeAll() {
        let feeds = [
            feed("recent", openedSecondsAgo: 10), feed("old", openedSecondsAgo: 1_000),
            feed("never", openedSecondsAgo: nil), feed("older", openedSecondsAgo: 5_000),
        ]
        #expect(evicted(feeds, used: 1_050) == ["never", "older"], "150 bytes to free: two feeds of 100")
        #expect(evicted(feeds, used: 2_000) == ["never", "older", "old", "recent"])
    }

    @Test func anOpenFeedOrOneWithPendingEditsIsNeverEvictedWhole() {
        let feeds = [
            feed("open", openedSecondsAgo: nil, isOpen: true, keptRows: 5),
            feed("edited", openedSecondsAgo: nil, pendingEdits: true, keptRows: 3), feed("closed"),
        ]
        let (steps, stillToFree) = EvictionRule.evictions(feeds, usedBytes: 5_000, budget: budget, now: now)
        #expect(steps == [.evict(key: "closed", reason: .overBudget)])
        #expect(stillToFree == 5_000 - 900 - 100, "what is left is for trims")
    }

    @Test func feedsNotOpenedForTheMaximumAgeGoWhateverTheSize() {
        let aging = StoreBudget(maxBytes: 1_000, maxUnopenedAge: 3_600)
        let feeds = [
            feed("stale", openedSecondsAgo: 7_200), feed("fresh", openedSecondsAgo: 60),
            feed("staleButOpen", openedSecondsAgo: 7_200, isOpen: true),
            feed("empty", rows: 0, openedSecondsAgo: 7_200),
        ]
        let (steps, _) = EvictionRule.evictions(feeds, usedBytes: 10, budget: aging, now: now)
        #expect(steps == [.evict(key: "stale", reason: .unopenedTooLong)])
    }

    @Test func trimsTakeTheLargestFeedFirst() {
        let feeds = [
            feed("small", bytes: 200, rows: 20, pages: [10, 10]),
            feed("large", bytes: 1_000, rows: 100, pages: [20, 20, 20, 20, 20]),
        ]
        #expect(EvictionRule.trims(feeds, toFree: 300) == [.trim(key: "large", keepingPages: 3, rows: 40)])
        #expect(
            EvictionRule.trims(feeds, toFree: 900) == [
                .trim(key: "large", keepingPages: 1, rows: 80), .trim(key: "small", keepingPages: 1, rows: 10),
            ])
    }

    @Test func aTrimKeepsEveryRowAnOpenListHoldsOrAPendingEditNames() {
        let open = feed("open", bytes: 1_000, rows: 100, isOpen: true, keptRows: 45, pages: [20, 20, 20, 20, 20])
        #expect(EvictionRule.trims([open], toFree: 10_000) == [.trim(key: "open", keepingPages: 3, rows: 40)])
        let all = feed("all", bytes: 1_000, rows: 100, isOpen: true, keptRows: 100, pages: [20, 20, 20, 20, 20])
        #expect(EvictionRule.trims([all], toFree: 10_000).isEmpty, "a list holding every row keeps them all")
    }

    @Test func aTrimNeverCutsWhereTheNextPageWouldSkipAServerItem() {
        var large = feed("large", bytes: 1_000, rows: 100, pages: [20, 20, 20, 20, 20])
        // Pages 1 to 3 were written by refreshes: only below page 3 does the next page resume exactly.
        for page in 1...3 { large.pages[page].requestCursor = "elsewhere" }
        #expect(EvictionRule.trims([large], toFree: 800) == [.trim(key: "large", keepingPages: 4, rows: 20)])
    }

    @Test func keepingRowsCoversThemWithWholePages() {
        #expect(TrimRule.pagesToKeep(chain([10, 10, 10]), maxRows: 0, keepingRows: 11) == 2)
        #expect(TrimRule.pagesToKeep(chain([10, 10, 10]), maxRows: 0, keepingRows: 0) == 1)
        #expect(TrimRule.pagesToKeep(chain([10, 10, 10]), maxRows: 0, keepingRows: 21) == nil)
    }
}
