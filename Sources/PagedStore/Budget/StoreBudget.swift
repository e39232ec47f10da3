public import Foundation

/// How large a store's file may grow, and how long a feed nobody opens is kept.
///
/// ```swift
/// let store = try FeedStore(
///     path: cachePath, budget: StoreBudget(maxBytes: 20 << 20, maxUnopenedAge: 30 * 24 * 3600))
/// ```
///
/// When a write leaves the file above ``maxBytes``, the store evicts whole feeds, those opened
/// longest ago first, then trims the oldest pages of the largest feeds, and gives the freed pages
/// back to the file system, so the file itself shrinks. An open feed's loaded rows and any row of
/// a pending optimistic edit are never touched. See <doc:StoreBudgets>.
public struct StoreBudget: Sendable, Equatable {
    /// The most bytes the file should hold.
    public var maxBytes: Int64
    /// How long a feed that is not opened is kept: older ones are evicted when the store opens and
    /// whenever it evicts. Nil keeps them until the size requires otherwise.
    public var maxUnopenedAge: TimeInterval?

    /// A budget of `maxBytes` bytes, and optionally a maximum age for feeds nobody opens.
    public init(maxBytes: Int64, maxUnopenedAge: TimeInterval? = nil) {
        self.maxBytes = max(maxBytes, 0)
        self.maxUnopenedAge = maxUnopenedAge
    }

    /// What an eviction aims for: a tenth under the budget, so that one eviction makes room for
    /// many writes instead of one.
    var target: Int64 { maxBytes - maxBytes / 10 }
}
