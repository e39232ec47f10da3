package import Foundation

/// The rule for where a trim may cut a feed: whole pages from the bottom, only where the next page
/// would resume exactly, and never the last page with rows. Pure: ``Trimmer`` reads the pages and
/// carries the cut out.
///
/// The feed's older-side cursor moves to the last kept page's, so the next page resumes right below
/// the rows that remain. That cursor is exact only where the page below was asked with it (or
/// nothing is below): a page written by a refresh holds only the new items of its response, and its
/// older cursor points below the overlap. So the cut moves down to the first page whose older cursor
/// continues the feed exactly: a trim may keep more rows than asked, never skip a server item.
package enum TrimRule {
    /// How many of `pages` (top first) a trim to at most `maxRows` rows keeps; nil when it keeps
    /// them all.
    package static func pagesToKeep(_ pages: [PageRecord], maxRows: Int) -> Int? {
        var rows = 0
        var keep = 0
        for page in pages {
            rows = rows.addingReportingOverflow(page.rowCount).overflow ? Int.max : rows + page.rowCount
            if rows > maxRows { break }
            keep += 1
        }
        return cut(pages, keeping: keep)
    }

    /// How many of `pages` (top first) a trim to at most `maxRows` rows keeps when the top
    /// `keptRows` rows must stay (rows on screen, rows of a pending edit); nil when it keeps them all.
    package static func pagesToKeep(_ pages: [PageRecord], maxRows: Int, keepingRows keptRows: Int) -> Int? {
        keeping(keptRows, of: pages, after: pagesToKeep(pages, maxRows: max(maxRows, 0)))
    }

    /// How many of `pages` a trim of the pages fetched before `date` keeps; nil when it keeps them all.
    package static func pagesToKeep(_ pages: [PageRecord], fetchedBefore date: Date) -> Int? {
        // A page of no rows holds nothing to age: the page that ended the feed goes with the pages above.
        let stale = pages.reversed().prefix { $0.rowCount == 0 || $0.fetchedAt < date }.count
        return cut(pages, keeping: pages.count - stale)
    }

    /// A trim that keeps `keep` of `pages` (nil: all, as a trim rule answers), moved down to keep the
    /// pages holding the top `keptRows` rows as well (the rows pending edits name); nil when it
    /// keeps them all.
    package static func keeping(_ keptRows: Int, of pages: [PageRecord], after keep: Int?) -> Int? {
        guard let keep else { return nil }
        var rows = 0
        var covering = 0
        for page in pages where rows < keptRows {
            rows = rows.addingReportingOverflow(page.rowCount).overflow ? Int.max : rows + page.rowCount
            covering += 1
        }
        return max(keep, covering) < pages.count ? cut(pages, keeping: max(keep, covering)) : nil
    }

    /// Where a trim that wants to keep `pageCount` pages cuts: at least down to the first page with
    /// rows (a top page emptied by local removals keeps nothing), then down to an exact cut. Nil when
    /// it keeps every page.
    static func cut(_ pages: [PageRecord], keeping pageCount: Int) -> Int? {
        let firstWithRows = (pages.firstIndex { $0.rowCount > 0 } ?? 0) + 1
        guard let keep = exactCut(in: pages, atLeast: max(pageCount, firstWithRows)), keep < pages.count else {
            return nil
        }
        return keep
    }

    /// The smallest page count of at least `pageCount` (and at least one page) after which the
    /// feed can be cut exactly: the last kept page's older cursor is the one the next page was asked
    /// with, or no page follows.
    ///
    /// A page of no rows stays with the page above it: cutting it off removes nothing, and when it is
    /// the page that ended the feed, would make an ended feed fetch again.
    static func exactCut(in pages: [PageRecord], atLeast pageCount: Int) -> Int? {
        var keep = max(pageCount, 1)
        while keep < pages.count {
            let last = pages[keep - 1]
            let next = pages[keep]
            // Seed fixtures without cursors chain nil to nil: nothing below them can be fetched anyway.
            if next.rowCount > 0, next.requestCursor == last.olderCursor,
                last.olderCursor != nil || next.request == .seed
            {
                return keep
            }
            keep += 1
        }
        return pages.count
    }
}
