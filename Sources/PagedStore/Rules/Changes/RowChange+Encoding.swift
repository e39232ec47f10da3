import Foundation

/// A change as the file's change record keeps it: a few bytes per write, since most changes are a
/// run of rows (a page on top, a page at the bottom, a trimmed tail). Pure.
///
/// The bytes are a version, a flags byte (bit 0: a full reload), then the deleted, inserted and
/// reloaded rows each as runs (a count, then each run's distance from the end of the previous run
/// and its length), the moves as pairs, and the reloaded ids as UTF-8 strings, every number a
/// LEB128 varint. Decoding refuses anything else (a record edited in the file), and the reader then
/// takes the file's rows whole.
extension RowChange {
    private static let encodingVersion: UInt8 = 1

    /// The change's bytes for the change record.
    var encoded: [UInt8] {
        var bytes: [UInt8] = [Self.encodingVersion, isFullReload ? 1 : 0]
        for rows in [deleted, inserted, reloaded] { Self.appendRuns(of: rows, to: &bytes) }
        Self.append(moved.count, to: &bytes)
        for move in moved {
            Self.append(move.from, to: &bytes)
            Self.append(move.to, to: &bytes)
        }
        Self.append(reloadedIDs.count, to: &bytes)
        for id in reloadedIDs {
            let utf8 = Array(id.utf8)
            Self.append(utf8.count, to: &bytes)
            bytes += utf8
        }
        return bytes
    }

    /// The change `bytes` encode, or nil when they are not a change this version wrote.
    /// - Parameter rowLimit: The larger of the row counts before and after the change: no row the
    ///   change names is at or beyond it, so a damaged record cannot make a huge change.
    init?(encoded bytes: [UInt8], rowLimit: Int) {
        var reader = ByteReader(bytes: bytes, rowLimit: max(rowLimit, 0))
        guard reader.byte() == Self.encodingVersion, let flags = reader.byte(), flags <= 1,
            let deleted = reader.runs(), let inserted = reader.runs(), let reloaded = reader.runs(),
            let moveCount = reader.count()
        else { return nil }
        var moved: [(from: Int, to: Int)] = []
        for _ in 0..<moveCount {
            guard let from = reader.row(), let to = reader.row() else { return nil }
            moved.append((from, to))
        }
        guard let idCount = reader.count() else { return nil }
        var ids: [String] = []
        for _ in 0..<idCount {
            guard let length = reader.count(), let utf8 = reader.bytes(length),
                let id = String(validating: utf8, as: UTF8.self)
            else { return nil }
            ids.append(id)
        }
        guard reader.isAtEnd else { return nil }
        self.init(
            deleted: deleted, inserted: inserted, reloaded: reloaded, reloadedIDs: ids, moved: moved,
            isFullReload: flags == 1)
    }

    private static func appendRuns(of rows: [Int], to bytes: inout [UInt8]) {
        var runs: [(start: Int, length: Int)] = []
        for row in rows {
            if let last = runs.last, last.start + last.length == row {
                runs[runs.count - 1].length += 1
            } else {
                runs.append((row, 1))
            }
        }
        append(runs.count, to: &bytes)
        var end = 0
        for run in runs {
            // Rows are ascending, so the distance is never negative; a change that is not keeps it exact.
            append(run.start - end, signed: true, to: &bytes)
            append(run.length, to: &bytes)
            end = run.start + run.length
        }
    }

    private static func append(_ number: Int, signed: Bool = false, to bytes: inout [UInt8]) {
        var value = UInt64(bitPattern: Int64(number))
        if signed { value = (value << 1) ^ UInt64(bitPattern: Int64(number) >> 63) }
        repeat {
            let low = UInt8(value & 0x7F)
            value >>= 7
            bytes.append(value == 0 ? low : low | 0x80)
        } while value != 0
    }

    /// Reads a record's bytes, refusing numbers out of range and reads past the end.
    private struct ByteReader {
        let bytes: [UInt8]
        let rowLimit: Int
        var offset = 0

        var isAtEnd: Bool { offset == bytes.count }

        mutating func byte() -> UInt8? {
            guard offset < bytes.count else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func bytes(_ count: Int) -> [UInt8]? {
            guard count <= bytes.count - offset else { return nil }
            defer { offset += count }
            return Array(bytes[offset..<offset + count])
        }

        mutating func raw() -> UInt64? {
            var value: UInt64 = 0
            for shift in stride(from: 0, to: 64, by: 7) {
                guard let byte = byte() else { return nil }
                value |= UInt64(byte & 0x7F) << UInt64(shift)
                if byte & 0x80 == 0 { return value }
            }
            return nil
        }

        /// A row: below the row limit.
        mutating func row() -> Int? {
            guard let value = raw(), value < UInt64(rowLimit) else { return nil }
            return Int(value)
        }

        /// A count of things that follow, each at least one byte: no more than the bytes left.
        mutating func count() -> Int? {
            guard let value = raw(), value <= UInt64(bytes.count - offset) else { return nil }
            return Int(value)
        }

        mutating func runs() -> [Int]? {
            guard let count = count() else { return nil }
            var rows: [Int] = []
            var end = 0
            for _ in 0..<count {
                guard let distance = raw(), let rawLength = raw(), rawLength <= UInt64(rowLimit) else { return nil }
                // Zigzag: the low bit is the sign.
                let magnitude = distance >> 1
                guard magnitude <= UInt64(rowLimit) else { return nil }
                let start = distance & 1 == 0 ? end + Int(magnitude) : end - Int(magnitude) - 1
                // Each row at most once per list, so a list never holds more rows than the limit.
                let length = Int(rawLength)
                guard start >= 0, length <= rowLimit - start, rows.count + length <= rowLimit else { return nil }
                rows += start..<(start + length)
                end = start + length
            }
            return rows
        }
    }
}
