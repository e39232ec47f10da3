import Foundation

/// Indexing, after the feed opens, the rows it cached before its type declared searchable fields,
/// and the rows other writers changed under the index.
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

    /// Indexes again, in one write, the rows a writer that bypassed PagedStore changed under the
    /// search index since the last repair (see ``PageStore/repairSearchIndex()``), reported as
    /// ``FeedEvent/Kind/searchIndexed``. Started by ``start()`` of a searchable feed: one look at
    /// a small table when nothing needs it.
    func repairSearchIndex() async {
        guard !queue.isClosed, !queue.isReadOnly else { return }
        do {
            guard try queue.read({ try $0.searchIndexNeedsRepair() }) else { return }
            let repaired = try writer.repairSearchIndex()
            report(.searchIndexed, nil, generation: activity.generation, rows: repaired)
        } catch {
            recordError(FeedError(error))
        }
    }
}
