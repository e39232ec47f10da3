import Foundation

/// The identifiers of every row, for diffable data sources.
extension Feed {
    /// The ids of every row of the current snapshot, section by section.
    ///
    /// Read from the cache's id column, never by decoding items: a feed with a million rows costs one
    /// pass over its ids and no payload decoding. When every row is in the window, no read at all.
    /// - Throws: ``FeedError`` when the cache cannot be read.
    /// - Complexity: O(*n*) for *n* rows.
    public func identifiers() throws -> FeedIdentifiers {
        do {
            try syncWithFile()
        } catch {
            throw FeedError(error)
        }
        let all: [String]
        if loaded.window.start == 0, loaded.window.rows.count == loaded.record.rowCount {
            all = loaded.window.rows.keys.map(\.id)
        } else {
            do {
                all = try queue.read { store in try store.itemIDs(of: loaded.record) }
            } catch {
                throw FeedError(error)
            }
        }
        return FeedIdentifiers(sequence: snapshot.sequence, all: all, sections: snapshot.sections)
    }

    /// The ids of every row of `snapshot`, or nil when the feed has emitted a newer snapshot since
    /// (that one is next in the stream: a diffable data source only needs the newest).
    /// - Throws: ``FeedError`` when the cache cannot be read.
    public func identifiers(of snapshot: FeedSnapshot<Item>) throws -> FeedIdentifiers? {
        guard snapshot.sequence == self.snapshot.sequence else { return nil }
        let identifiers = try identifiers()
        // Another writer's rows, taken while looking, are a newer snapshot: that one is next.
        return identifiers.sequence == snapshot.sequence ? identifiers : nil
    }
}
