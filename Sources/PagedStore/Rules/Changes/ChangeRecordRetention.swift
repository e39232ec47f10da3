/// How long the change record keeps a write: the store's newest writes, as many as its limit
/// (``DatabaseQueue/changeRecordLimit``), so the record never grows with the file's age. Pure.
///
/// A list that missed more writes than that takes its feed's rows whole, once, and says so in its
/// events. Open lists of this process are told of each write as it commits, so they miss none; the
/// bound is for lists in other processes that were not looking (an extension, an app suspended).
/// Forgetting runs every ``interval`` writes, so a write usually pays nothing for it.
enum ChangeRecordRetention {
    /// How often, in writes, the oldest are forgotten.
    static let interval: Int64 = 64

    /// The sequence number through which the record forgets, right after write `sequence`; nil when
    /// nothing is due.
    static func forgetThrough(after sequence: Int64, limit: Int) -> Int64? {
        let limit = Int64(max(limit, 1))
        guard sequence > limit, sequence % interval == 0 else { return nil }
        return sequence - limit
    }
}
