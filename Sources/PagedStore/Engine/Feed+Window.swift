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
        if let last = window.rows.keys.last, range.lowerBound >= window.start, range.lowerBound <= window.end,
            range.upperBound > window.end
        {
            // Scrolling down: keep the overlap, read only the rows below the window.
            let stored = try queue.readStatement { store in
                try store.window(
                    of: record, from: .after(position: last.position), limit: range.upperBound - window.end)
            }
            let decoded = LoadedRows.decoding(stored, codec: codec)
            undecodable = decoded.undecodable
            if undecodable.isEmpty {
                var rows = window.rows[(range.lowerBound - window.start)..<window.rows.count]
                rows.append(decoded.rows)
                window.rows = rows
                window.start = range.lowerBound
            }
        } else if let first = window.rows.keys.first, range.upperBound <= window.end,
            range.upperBound >= window.start, range.lowerBound < window.start
        {
            // Scrolling up: read only the rows above the window.
            let stored = try queue.readStatement { store in
                try store.window(
                    of: record, from: .before(position: first.position), limit: window.start - range.lowerBound)
            }
            let decoded = LoadedRows.decoding(stored, codec: codec)
            undecodable = decoded.undecodable
            if undecodable.isEmpty {
                var rows = decoded.rows
                rows.append(window.rows[0..<(range.upperBound - window.start)])
                window.rows = rows
                window.start = range.lowerBound
            }
        } else {
            let stored = try queue.readStatement { store in
                try store.window(of: record, from: .row(range.lowerBound), limit: range.count)
            }
            let decoded = LoadedRows.decoding(stored, codec: codec)
            undecodable = decoded.undecodable
            if undecodable.isEmpty {
                window.rows = decoded.rows
                window.start = range.lowerBound
            }
        }
        // The reads ran without a transaction: an unchanged mark afterwards says they read this
        // feed's rows; otherwise the window is read again from the file's rows, with a full reload.
        try syncWithFile()
        // Rows that do not decode: their removal is a change of its own, emitted with the window read
        // again; the rows asked for then sit a little higher, and are read again.
        guard try dropUndecodable(undecodable) else { return }
        let start = min(range.lowerBound, max(record.rowCount - range.count, 0))
        try moveWindow(to: start..<min(start + range.count, record.rowCount))
    }
}
