import Foundation

/// Moving the window of decoded rows as rows appear.
extension Feed {
    /// Reads the rows of `range` into the window: by keyset when it continues the current window,
    /// otherwise by row number. Each read is one statement, so it runs without an explicit
    /// transaction (``DatabaseQueue/readStatement(_:)``).
    ///
    /// Rows there that do not decode are removed first (their deletion is emitted), and the rows
    /// around the same place are read again.
    func moveWindow(to range: Range<Int>) throws {
        let undecodable: [UndecodableRow]
        if let last = loaded.window.rows.keys.last, range.lowerBound >= loaded.window.start,
            range.lowerBound <= loaded.window.end,
            range.upperBound > loaded.window.end
        {
            // Scrolling down: keep the overlap, read only the rows below the window.
            let stored = try queue.readStatement { store in
                try store.window(
                    of: loaded.record, from: .after(position: last.position),
                    limit: range.upperBound - loaded.window.end)
            }
            let decoded = LoadedRows.decoding(stored, codec: codec)
            undecodable = decoded.undecodable
            if undecodable.isEmpty {
                var rows = loaded.window.rows[(range.lowerBound - loaded.window.start)..<loaded.window.rows.count]
                rows.append(decoded.rows)
                loaded.window.rows = rows
                loaded.window.start = range.lowerBound
            }
        } else if let first = loaded.window.rows.keys.first, range.upperBound <= loaded.window.end,
            range.upperBound >= loaded.window.start, range.lowerBound < loaded.window.start
        {
            // Scrolling up: read only the rows above the window.
            let stored = try queue.readStatement { store in
                try store.window(
                    of: loaded.record, from: .before(position: first.position),
                    limit: loaded.window.start - range.lowerBound)
            }
            let decoded = LoadedRows.decoding(stored, codec: codec)
            undecodable = decoded.undecodable
            if undecodable.isEmpty {
                var rows = decoded.rows
                rows.append(loaded.window.rows[0..<(range.upperBound - loaded.window.start)])
                loaded.window.rows = rows
                loaded.window.start = range.lowerBound
            }
        } else {
            let stored = try queue.readStatement { store in
                try store.window(of: loaded.record, from: .row(range.lowerBound), limit: range.count)
            }
            let decoded = LoadedRows.decoding(stored, codec: codec)
            undecodable = decoded.undecodable
            if undecodable.isEmpty {
                loaded.window.rows = decoded.rows
                loaded.window.start = range.lowerBound
            }
        }
        // The reads ran without a transaction: an unchanged mark afterwards says they read this
        // feed's rows; otherwise the window is read again from the file's rows, with a full reload.
        try syncWithFile()
        // Rows that do not decode: their removal is a change of its own, emitted with the window read
        // again; the rows asked for then sit a little higher, and are read again.
        guard try dropUndecodable(undecodable) else { return }
        let start = min(range.lowerBound, max(loaded.record.rowCount - range.count, 0))
        try moveWindow(to: start..<min(start + range.count, loaded.record.rowCount))
    }
}
