import Foundation

/// Moving the window of decoded rows as rows appear.
extension Feed {
    /// Reads the rows of `range` into the window: by keyset when it continues the current window,
    /// otherwise by row number. Each read is one statement, so it runs without an explicit
    /// transaction (``DatabaseQueue/readStatement(_:)``).
    func moveWindow(to range: Range<Int>) throws {
        if let last = window.rows.keys.last, range.lowerBound >= window.start, range.lowerBound <= window.end,
            range.upperBound > window.end
        {
            // Scrolling down: keep the overlap, read only the rows below the window.
            let stored = try queue.readStatement { store in
                try store.window(
                    of: record, from: .after(position: last.position), limit: range.upperBound - window.end)
            }
            var rows = window.rows[(range.lowerBound - window.start)..<window.rows.count]
            rows.append(try LoadedRows(decoding: stored, codec: codec))
            window.rows = rows
        } else if let first = window.rows.keys.first, range.upperBound <= window.end,
            range.upperBound >= window.start, range.lowerBound < window.start
        {
            // Scrolling up: read only the rows above the window.
            let stored = try queue.readStatement { store in
                try store.window(
                    of: record, from: .before(position: first.position), limit: window.start - range.lowerBound)
            }
            var rows = try LoadedRows(decoding: stored, codec: codec)
            rows.append(window.rows[0..<(range.upperBound - window.start)])
            window.rows = rows
        } else {
            let stored = try queue.readStatement { store in
                try store.window(of: record, from: .row(range.lowerBound), limit: range.count)
            }
            window.rows = try LoadedRows(decoding: stored, codec: codec)
        }
        window.start = range.lowerBound
        // The reads ran without a transaction: an unchanged mark afterwards says they read this
        // feed's rows; otherwise the window is read again from the file's rows, with a full reload.
        try syncWithFile()
    }
}
