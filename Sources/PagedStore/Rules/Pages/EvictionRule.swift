package import Foundation

/// The rule for what a store over its budget evicts. Pure: ``BudgetKeeper`` reads the facts,
/// carries the plan out in one write, and gives the freed pages back.
///
/// Whole feeds go first: every feed not opened for longer than the budget's maximum age, then, while
/// the file holds more than the budget's target, the feeds opened longest ago (never opened first).
/// A feed that is open or has a pending optimistic edit is never evicted whole. When that is not
/// enough, the largest remaining feeds lose their oldest pages, by ``TrimRule`` (whole pages from
/// the bottom, never skipping a server item), keeping every row an open list has loaded and every
/// row a pending edit names.
package enum EvictionRule {
    /// One feed as the rule sees it.
    package struct Feed: Sendable, Equatable {
        /// The feed's key.
        package var key: String
        /// Its rows.
        package var rows: Int
        /// About how many bytes its rows take.
        package var bytes: Int64
        /// When it was last opened; nil when never (as far as the file recorded).
        package var openedAt: Date?
        /// Whether a list of it is open now.
        package var isOpen: Bool
        /// Whether it has pending optimistic edits.
        package var hasPendingEdits: Bool
        /// How many rows from the top must stay: an open list's loaded rows, the rows of pending edits.
        package var keptRows: Int
        /// Its pages, top first; only needed for trimming (see ``trims(_:toFree:)``).
        package var pages: [PageRecord] = []

        /// Whether the feed may be evicted whole.
        var isEvictable: Bool { !isOpen && !hasPendingEdits && keptRows == 0 && rows > 0 }
    }

    /// Why a feed is evicted whole.
    package enum Reason: String, Sendable, Equatable {
        /// It was not opened for longer than the budget's maximum age.
        case unopenedTooLong
        /// The file was over its budget, and it was opened longest ago.
        case overBudget
    }

    /// What the rule decides.
    package enum Step: Sendable, Equatable {
        /// Empty the feed `key`.
        case evict(key: String, reason: Reason)
        /// Keep the top `keepingPages` pages of the feed `key`, which removes `rows` rows.
        case trim(key: String, keepingPages: Int, rows: Int)
    }

    /// The whole feeds to evict, and how many bytes must still be freed after them (0 or less when
    /// none).
    /// - Parameters:
    ///   - usedBytes: What the file's data takes now (its free pages left out).
    ///   - now: The time to measure ages against.
    package static func evictions(
        _ feeds: [Feed], usedBytes: Int64, budget: StoreBudget, now: Date
    ) -> (steps: [Step], stillToFree: Int64) {
        var toFree = usedBytes - budget.target
        var steps: [Step] = []
        var evicted = Set<String>()
        if let maxAge = budget.maxUnopenedAge {
            let oldest = now - maxAge
            for feed in feeds where feed.isEvictable && (feed.openedAt ?? .distantPast) < oldest {
                steps.append(.evict(key: feed.key, reason: .unopenedTooLong))
                evicted.insert(feed.key)
                toFree -= feed.bytes
            }
        }
        let candidates = feeds.filter { $0.isEvictable && !evicted.contains($0.key) }.sorted {
            ($0.openedAt ?? .distantPast, $0.key) < ($1.openedAt ?? .distantPast, $1.key)
        }
        for feed in candidates where toFree > 0 {
            steps.append(.evict(key: feed.key, reason: .overBudget))
            toFree -= feed.bytes
        }
        return (steps, toFree)
    }

    /// The trims that free about `bytes` bytes from `feeds` (the ones not evicted, with their pages):
    /// the largest first, each down to what it must keep.
    package static func trims(_ feeds: [Feed], toFree bytes: Int64) -> [Step] {
        var toFree = bytes
        var steps: [Step] = []
        for feed in feeds.sorted(by: { ($0.bytes, $1.key) > ($1.bytes, $0.key) }) where toFree > 0 {
            guard feed.rows > 0, feed.bytes > 0 else { continue }
            let bytesPerRow = max(feed.bytes / Int64(feed.rows), 1)
            let (rowsToFree, _) = (toFree + bytesPerRow - 1).dividedReportingOverflow(by: bytesPerRow)
            let maxRows = feed.rows - Int(clamping: rowsToFree)
            guard let keep = TrimRule.pagesToKeep(feed.pages, maxRows: maxRows, keepingRows: feed.keptRows) else {
                continue
            }
            let keptRows = feed.pages.prefix(keep).reduce(0) { $0 &+ $1.rowCount }
            let removed = max(feed.rows - keptRows, 0)
            guard removed > 0 else { continue }
            steps.append(.trim(key: feed.key, keepingPages: keep, rows: removed))
            toFree -= Int64(removed) * bytesPerRow
        }
        return steps
    }
}
