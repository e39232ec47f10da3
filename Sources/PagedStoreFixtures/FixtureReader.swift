package import Foundation

/// Reads fixtures and captured responses: a JSON array of items, NDJSON, a JSON array of page
/// objects, or one page object. Every problem is reported as `file:line:column: reason`, and
/// nothing is returned unless the whole file is valid.
package struct FixtureReader: Sendable {
    /// The largest item accepted, so that a runaway line cannot exhaust memory.
    package static let maxItemBytes = 1 << 20
    /// The largest file accepted.
    package static let maxFileBytes = 1 << 30

    /// The key holding each item's id (string or integer). Default `id`.
    package var idKey: String
    /// The key holding each item's section, if any.
    package var sectionKey: String?
    /// The shape the file must have, or nil to tell it from the file's shape as a whole.
    package var format: FixtureFormat?

    /// A reader for items whose id is under `idKey`.
    package init(idKey: String = "id", sectionKey: String? = nil, format: FixtureFormat? = nil) {
        self.idKey = idKey
        self.sectionKey = sectionKey
        self.format = format
    }

    /// Reads a file, refusing one larger than ``maxFileBytes`` before loading it. Everything is in
    /// memory afterwards: for captured responses and small fixtures (`seed` streams with
    /// ``stream(contentsOf:pageSize:checkingDuplicates:_:)``).
    package func read(contentsOf path: String) throws(FixtureError) -> (format: FixtureFormat, pages: [FixturePage]) {
        let file = try MappedFile(path: path)
        return try file.withBytes { bytes throws(FixtureError) in try read(bytes, file: path) }
    }

    /// Reads fixture text; `file` names it in errors.
    package func read(_ data: Data, file: String) throws(FixtureError) -> (format: FixtureFormat, pages: [FixturePage])
    {
        let result = data.withUnsafeBytes { bytes in Result { () throws(FixtureError) in try read(bytes, file: file) } }
        return try result.get()
    }

    private func read(
        _ bytes: UnsafeRawBufferPointer, file: String
    ) throws(FixtureError) -> (format: FixtureFormat, pages: [FixturePage]) {
        var items: [FixtureItem] = []
        var pages: [FixturePage] = []
        let format = try scan(bytes, file: file, seen: SeenIDs()) { element throws(FixtureError) in
            switch element {
            case .item(let item, _): items.append(item)
            case .page(let page, _): pages.append(page)
            }
        }
        if format == .json || format == .ndjson {
            return (format, [FixturePage(items: items, olderCursor: nil, newerCursor: nil)])
        }
        return (format, pages)
    }

    /// Streams a fixture file in constant memory: the file is mapped and its pages released as they
    /// are read; items are grouped into pages of `pageSize` (page objects keep their own).
    ///
    /// - Parameters:
    ///   - checkingDuplicates: Whether to refuse an id that appears twice. The ids seen are kept in a
    ///     temporary SQLite index on disk, not in memory.
    ///   - body: Called with each page, in order, and the byte offset of each of its items (a page
    ///     object's own for items inside one). A ``FixtureProblem`` it throws becomes a
    ///     ``FixtureError`` at that offset's line and column.
    ///   - finish: Called once after the last page, while the file is still open, so that a
    ///     ``FixtureProblem`` found only at the end (a bulk seed's repeated id) is located too.
    /// - Returns: The file's format.
    @discardableResult
    package func stream(
        contentsOf path: String, pageSize: Int, checkingDuplicates: Bool,
        _ body: (FixturePage, _ offsets: [Int]) throws -> Void, finish: () throws -> Void = {}
    ) throws -> FixtureFormat {
        let file = try MappedFile(path: path)
        let seen = checkingDuplicates ? try SeenIDs(onDisk: ()) : nil
        return try file.withBytes { bytes in
            var batch: [FixtureItem] = []
            var offsets: [Int] = []
            batch.reserveCapacity(min(max(pageSize, 1), 4096))
            var failure: (any Error)?
            let format = try scan(bytes, file: path, seen: seen, release: file.release, locate: file.location) {
                element throws(FixtureError) in
                guard failure == nil else { return }
                do {
                    switch element {
                    case .page(let page, let offset):
                        try body(page, Array(repeating: offset, count: page.items.count))
                    case .item(let item, let offset):
                        batch.append(item)
                        offsets.append(offset)
                        if batch.count >= pageSize {
                            try body(FixturePage(items: batch, olderCursor: nil, newerCursor: nil), offsets)
                            batch.removeAll(keepingCapacity: true)
                            offsets.removeAll(keepingCapacity: true)
                        }
                    }
                } catch {
                    failure = error
                }
            }
            if failure == nil, !batch.isEmpty {
                do {
                    try body(FixturePage(items: batch, olderCursor: nil, newerCursor: nil), offsets)
                } catch {
                    failure = error
                }
            }
            if failure == nil {
                do { try finish() } catch { failure = error }
            }
            if let problem = failure as? FixtureProblem {
                let (line, column) = file.location(of: problem.offset)
                throw FixtureError(file: path, line: line, column: column, reason: problem.reason)
            }
            if let failure { throw failure }
            return format
        }
    }

    /// Checks every item of a fixture file, as ``stream(contentsOf:pageSize:checkingDuplicates:_:finish:)``
    /// does, and counts them, without keeping canonical items' ids and bytes: a seed's first pass,
    /// which only needs to know that the file is valid and how many items it holds.
    package func count(contentsOf path: String) throws -> Int {
        let file = try MappedFile(path: path)
        return try file.withBytes { bytes throws(FixtureError) in
            var count = 0
            _ = try scan(
                bytes, file: path, seen: nil, keepsItems: false, release: file.release, locate: file.location
            ) {
                element throws(FixtureError) in
                switch element {
                case .item: count += 1
                case .page(let page, _): count += page.items.count
                }
            }
            return count
        }
    }

    /// One element of a fixture as the scan meets it, with its byte offset.
    enum Element {
        case item(FixtureItem, at: Int)
        case page(FixturePage, at: Int)
    }

    /// Reads `bytes` element by element (items of an array or of NDJSON, or page objects), telling
    /// the shape from the file as a whole, and calls `emit` with each; `release` is told how far the
    /// scan has read, so that mapped pages behind it can be dropped.
    private func scan(
        _ bytes: UnsafeRawBufferPointer, file: String, seen: SeenIDs?, keepsItems: Bool = true,
        release: (Int) -> Void = { _ in }, locate: ((Int) -> (line: Int, column: Int))? = nil,
        emit: (Element) throws(FixtureError) -> Void
    ) throws(FixtureError) -> FixtureFormat {
        // One writer per file: it keeps its buffers and the key orders it has learnt.
        var canonical = CanonicalJSON(idKey: idKey, sectionKey: sectionKey)
        // Lines and columns are counted only when an error needs them: no table of line starts.
        let fail = { (offset: Int, reason: String) -> FixtureError in
            let (line, column) = locate?(offset) ?? TextLocator.location(of: offset, in: bytes)
            return FixtureError(file: file, line: line, column: column, reason: reason)
        }
        let first = JSONArrayScanner.skipSpace(bytes, from: 0)
        guard first < bytes.count else { throw fail(0, "the file is empty") }
        switch bytes[first] {
        case UInt8(ascii: "["):
            if format == .ndjson || format == .page {
                throw fail(first, "expected \(format == .page ? "a page object" : "NDJSON lines"), found a JSON array")
            }
            var pages = format == .pages
            if format == nil { pages = try isArrayOfPages(bytes, fail) }
            // Page objects hold many items: the 1 MiB limit applies to each item, not to a page.
            try JSONArrayScanner.forEachElement(of: bytes, fail: fail) { range throws(FixtureError) in
                if !pages,
                    let item = try canonicalItem(bytes, range, &canonical, keepsItems: keepsItems, seen: seen, fail)
                {
                    try emit(.item(item, at: range.lowerBound))
                    release(range.upperBound)
                    return true
                }
                let object = try object(bytes, range, fail, limit: pages ? Self.maxFileBytes : Self.maxItemBytes)
                if pages {
                    try emit(.page(try page(object, at: range.lowerBound, seen: seen, fail), at: range.lowerBound))
                } else {
                    try emit(
                        .item(
                            try item(object, at: range.lowerBound, size: range.count, seen: seen, fail),
                            at: range.lowerBound))
                }
                release(range.upperBound)
                return true
            }
            return pages ? .pages : .json
        case UInt8(ascii: "{"):
            if format == .json || format == .pages {
                throw fail(first, "expected a JSON array, found an object")
            }
            if format == .page || (format == nil && isPageObject(bytes, first: first, fail)) {
                let object = try object(bytes, 0..<bytes.count, fail, limit: Self.maxFileBytes)
                try emit(.page(try page(object, at: first, seen: seen, fail), at: first))
                return .page
            }
            var start = 0
            while start < bytes.count {
                let end = Self.lineEnd(bytes, from: start)
                if let item = try canonicalItem(
                    bytes, start..<end, &canonical, keepsItems: keepsItems, seen: seen, fail)
                {
                    try emit(.item(item, at: start))
                } else if JSONArrayScanner.skipSpace(bytes, from: start) < end {
                    let line = try object(bytes, start..<end, fail, limit: Self.maxItemBytes)
                    try emit(.item(try item(line, at: start, size: end - start, seen: seen, fail), at: start))
                }
                release(end)
                start = end + 1
            }
            return .ndjson
        default:
            throw fail(first, "expected a JSON array, NDJSON lines or a page object")
        }
    }

    /// Whether every element of the array is a page object (see ``isPages(_:)``). Stops at the first
    /// element that is not, so an array of items costs one element; an element that is not valid
    /// JSON ends the look and the read that follows reports it.
    private func isArrayOfPages(
        _ bytes: UnsafeRawBufferPointer, _ fail: (Int, String) -> FixtureError
    ) throws(FixtureError) -> Bool {
        var pages = true
        var any = false
        try JSONArrayScanner.forEachElement(of: bytes, fail: fail) { range throws(FixtureError) in
            guard let object = try? object(bytes, range, fail, limit: Self.maxFileBytes) else { return false }
            any = true
            pages = Self.isPages([object])
            return pages
        }
        return pages && any
    }

    /// Whether a file starting with `{` is one page object rather than NDJSON: its first line is not
    /// a whole object (a page spread over lines), or the file is that one line and it has a page's shape.
    private func isPageObject(
        _ bytes: UnsafeRawBufferPointer, first: Int, _ fail: (Int, String) -> FixtureError
    ) -> Bool {
        let end = Self.lineEnd(bytes, from: 0)
        guard let line = try? object(bytes, 0..<end, fail, limit: Self.maxFileBytes) else { return true }
        return JSONArrayScanner.skipSpace(bytes, from: end) >= bytes.count && Self.isPages([line])
    }

    private static func lineEnd(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        guard start < bytes.count, let base = bytes.baseAddress else { return bytes.count }
        let found = memchr(base + start, 0x0A, bytes.count - start)
        return found.map { UnsafeRawPointer($0) - base } ?? bytes.count
    }

    // MARK: - Values

    /// Whether parsed objects are pages as a whole: every one has an `items` array and at least one
    /// cursor key. One `items` key alone is not enough: an order with its line items is an item.
    static func isPages(_ objects: [[String: Any]]) -> Bool {
        !objects.isEmpty
            && objects.allSatisfy { object in
                object["items"] is [Any] && (object["next_cursor"] != nil || object["previous_cursor"] != nil)
            }
    }

    private func object(
        _ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ fail: (Int, String) -> FixtureError, limit: Int
    ) throws(FixtureError) -> [String: Any] {
        guard range.count <= limit else {
            throw fail(range.lowerBound, "an item of \(range.count >> 20) MiB is larger than the 1 MiB limit")
        }
        let value: Any
        do {
            value = try JSONSerialization.jsonObject(with: Data(bytes[range]), options: [.fragmentsAllowed])
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
            throw fail(range.lowerBound + Self.characterOffset(in: detail), "invalid JSON: \(detail)")
        }
        guard let object = value as? [String: Any] else {
            throw fail(range.lowerBound, "expected a JSON object")
        }
        return object
    }

    /// The item at `range` written in canonical JSON in one pass (see ``CanonicalJSON``), without
    /// Foundation; nil when it must take Foundation's path (which also reports every error).
    private func canonicalItem(
        _ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ canonical: inout CanonicalJSON, keepsItems: Bool,
        seen: SeenIDs?, _ fail: (Int, String) -> FixtureError
    ) throws(FixtureError) -> FixtureItem? {
        guard range.count <= Self.maxItemBytes, canonical.write(bytes, range, sortingKeys: keepsItems),
            canonical.output.count <= Self.maxItemBytes
        else { return nil }
        // A counting pass checks no repeats (see `count(contentsOf:)`): neither the id nor the bytes.
        guard keepsItems || seen != nil else { return Self.counted }
        let id = String(decoding: canonical.id, as: UTF8.self)
        try Self.checkFirst(id, at: range.lowerBound, seen: seen, fail)
        return FixtureItem(
            id: id, section: canonical.section.map { String(decoding: $0, as: UTF8.self) },
            json: Data(canonical.output))
    }

    /// What a counting pass gets for a canonical item: nothing of it is kept.
    private static let counted = FixtureItem(id: "", section: nil, json: Data())

    /// Records `id` as seen at `offset`, or throws when the file had it before.
    private static func checkFirst(
        _ id: String, at offset: Int, seen: SeenIDs?, _ fail: (Int, String) -> FixtureError
    ) throws(FixtureError) {
        if let previous = try seen?.insert(id, at: offset, fail) {
            throw fail(offset, "duplicate id \(id.debugDescription) (first at line \(fail(previous, "").line))")
        }
    }

    private func item(
        _ object: [String: Any], at offset: Int, size: Int? = nil, seen: SeenIDs?,
        _ fail: (Int, String) -> FixtureError
    ) throws(FixtureError) -> FixtureItem {
        guard let raw = object[idKey] else {
            // A page object without cursor keys reads as an item: say how to read it as a page.
            let hint =
                object["items"] is [Any] ? " (a page needs \"next_cursor\" or \"previous_cursor\", or --format)" : ""
            throw fail(offset, "the item has no \"\(idKey)\"\(hint)")
        }
        let id: String
        if let text = raw as? String, !text.isEmpty {
            id = text
        } else if let number = raw as? NSNumber, Self.isInteger(number) {
            id = number.stringValue
        } else if let number = raw as? NSNumber, !Self.isBoolean(number) {
            // 1.0 and 1 would become one id, and 1e300 no id a server sent: refuse, never round.
            throw fail(
                offset, "the item's \"\(idKey)\" is \(number.stringValue), not an integer; ids are strings or integers")
        } else {
            throw fail(offset, "the item's \"\(idKey)\" must be a non-empty string or an integer")
        }
        try Self.checkFirst(id, at: offset, seen: seen, fail)
        let section = sectionKey.flatMap { object[$0] }.map { ($0 as? String) ?? "\($0)" }
        guard
            let json = try? JSONSerialization.data(
                withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { throw fail(offset, "the item cannot be written back as JSON") }
        // The limit is per item, measured on its canonical JSON when it came inside a page.
        if max(size ?? 0, json.count) > Self.maxItemBytes {
            throw fail(offset, "an item of \(max(size ?? 0, json.count) >> 10) KiB is larger than the 1 MiB limit")
        }
        return FixtureItem(id: id, section: section, json: json)
    }

    private func page(
        _ object: [String: Any], at offset: Int, seen: SeenIDs?, _ fail: (Int, String) -> FixtureError
    ) throws(FixtureError) -> FixturePage {
        guard let items = object["items"] as? [Any] else { throw fail(offset, "the page has no \"items\" array") }
        let parsed = try items.enumerated().map { index, value throws(FixtureError) in
            guard let item = value as? [String: Any] else { throw fail(offset, "items[\(index)] is not an object") }
            do throws(FixtureError) {
                return try self.item(item, at: offset, seen: seen, fail)
            } catch {
                throw FixtureError(
                    file: error.file, line: error.line, column: error.column, reason: "items[\(index)]: \(error.reason)"
                )
            }
        }
        return FixturePage(
            items: parsed, olderCursor: try cursor(object["next_cursor"], "next_cursor", offset, fail),
            newerCursor: try cursor(object["previous_cursor"], "previous_cursor", offset, fail))
    }

    private func cursor(
        _ value: Any?, _ key: String, _ offset: Int, _ fail: (Int, String) -> FixtureError
    )
        throws(FixtureError) -> String?
    {
        switch value {
        case nil, is NSNull: return nil
        case let text as String: return text
        default: throw fail(offset, "\"\(key)\" must be a string or null")
        }
    }

    /// JSONSerialization says "around character N": the offset of the problem within the value.
    private static func characterOffset(in detail: String) -> Int {
        guard let range = detail.range(of: "character ") else { return 0 }
        return Int(detail[range.upperBound...].prefix { $0.isNumber }) ?? 0
    }

    /// Whether a JSON number was written as an integer: JSONSerialization gives integers an integer
    /// C type, and anything with a fraction or exponent a `d` (double).
    private static func isInteger(_ number: NSNumber) -> Bool {
        ["i", "s", "l", "q", "I", "S", "L", "Q"].contains(String(cString: number.objCType))
    }

    /// JSON `true` and `false` arrive as NSNumbers of C type `c` (char); integers are `i`, `l` or `q`.
    private static func isBoolean(_ number: NSNumber) -> Bool {
        String(cString: number.objCType) == "c"
    }
}
