import PagedStore

extension FeedSnapshot {
    /// The ids of every row (all must be loaded).
    var ids: [String] { rows.indices.map { rows.id(at: $0) ?? "<not loaded>" } }
}
