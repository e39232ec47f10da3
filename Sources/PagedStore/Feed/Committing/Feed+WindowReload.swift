import Foundation

/// Reading the rows a feed holds in memory again from the cache.
extension Feed {
    /// Reads the window's rows again from the cache, keeping its start, with the feed's row in the
    /// same read. A row read with the key of a row held (the same bytes at the same place) keeps
    /// its decoded item: only the rows a write inserted or changed are decoded.
    /// - Returns: The rows read that do not decode (the window stops right above the first of them,
    ///   and the caller removes them, ``removeUndecodable(_:inARefreshedPage:)``, before it emits);
    ///   and, when the file's row is no longer the one held (another writer committed after this
    ///   feed's commit, so the feed now holds the file's row and the rows read are that state's), the
    ///   recorded change since the row held, or `.some(nil)` when the change record does not cover it.
    func reloadWindow() throws -> (undecodable: [UndecodableRow], changedSince: RowChange??) {
        let (record, window, key) = (loaded.record, loaded.window, self.key)
        let read = try queue.read { store in
            let file = try store.feed(key: key) ?? record
            let change: RowChange?? =
                file == record ? nil : .some(try ChangeChain.change(from: record, to: file, in: store))
            return (file, try window.read(of: file, from: window.start, in: store), change)
        }
        let decoded = LoadedRows.decoding(read.1.stored, codec: codec, keeping: window)
        loaded.window.start = read.1.start
        loaded.window.rows = decoded.rows
        loaded.record = read.0
        return (decoded.undecodable, read.2)
    }
}
