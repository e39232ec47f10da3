import Testing

@testable import PagedStore

extension FeedTestCase {
    /// The change record of the feed `key`: each write's change counts and row counts, in order,
    /// and the feed's row as the file has it.
    func changeRecordLinks(of key: String) throws -> (links: [(Int64, Int64, Int, Int)], file: FeedRecord) {
        try DatabaseQueue(path: path).read { store in
            let feed = try #require(try store.feed(key: key))
            let links = try store.connection.rows(
                "SELECT from_count, to_count, from_rows, to_rows FROM feed_change WHERE feed_id = ? ORDER BY seq",
                feed.id
            ) { ($0.int64(0), $0.int64(1), $0.int(2), $0.int(3)) }
            return (links, feed)
        }
    }

    /// Expects the feed's recorded writes to follow each other (each starts where the one before
    /// ended) and to end at the feed's row as the file has it.
    func expectChangeRecordChains(
        _ key: String, _ context: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let (links, file) = try changeRecordLinks(of: key)
        for (previous, next) in zip(links, links.dropFirst()) {
            #expect(
                previous.1 == next.0 && previous.3 == next.2, "\(context): \(previous) then \(next)",
                sourceLocation: sourceLocation)
        }
        if let last = links.last {
            #expect(
                last.1 == file.changeCount, "\(context): the record ends at \(last.1), the file at \(file.changeCount)",
                sourceLocation: sourceLocation)
            #expect(
                last.3 == file.rowCount, "\(context): the record ends at \(last.3) rows, the file has \(file.rowCount)",
                sourceLocation: sourceLocation)
        }
    }
}
