import Foundation

/// Indexing, after the feed opens, the rows it cached before its type declared searchable fields.
extension Feed {
    /// How many rows one write of the backlog indexes: small enough that the feed's own writes (a
    /// refresh the reader pulled) wait for at most one batch.
    static var searchBacklogBatch: Int { 500 }

    /// Indexes the feed's search backlog in batches, one write each, reporting each batch
    /// (``FeedEvent/Kind/searchIndexed``, `rowsChanged` the rows indexed so far), until none is
    /// left, the feed's task is cancelled or the store closes. Started by ``start()``: the first
    /// screen never waits for it.
    func indexSearchBacklog() async {
        var indexed = 0
        while !Task.isCancelled, !queue.isClosed, !queue.isReadOnly {
            let batch: (indexed: Int, backlog: Int64?)
            do {
                batch = try writer.indexSearchBacklog(batch: Self.searchBacklogBatch)
            } catch {
                return recordError(FeedError(error))
            }
            // The feed's row as the batch left it: the feed's next write must not take the batch
            // for another writer's.
            loaded.record.searchBacklog = batch.backlog
            indexed += batch.indexed
            report(.searchIndexed, nil, generation: activity.generation, rows: indexed)
            guard batch.backlog != nil else { return }
            await Task.yield()
        }
    }
}
