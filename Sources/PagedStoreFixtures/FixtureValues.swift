package import Foundation

/// One item of a fixture: its id, optional section and canonical JSON (sorted keys), which is what
/// the cache stores and what an export writes back.
package struct FixtureItem: Sendable, Equatable {
    /// The item's id, as text.
    package var id: String
    /// Its section key, when the reader was given one to read.
    package var section: String?
    /// The item's JSON object, canonical: sorted keys, no escaped slashes.
    package var json: Data

    /// Creates an item.
    package init(id: String, section: String?, json: Data) {
        self.id = id
        self.section = section
        self.json = json
    }
}

/// One page of a fixture: items with the cursors the server returned (the page format: `items`,
/// `next_cursor`, `previous_cursor`).
package struct FixturePage: Sendable, Equatable {
    /// The items, top first.
    package var items: [FixtureItem]
    /// `next_cursor`: the older-side cursor, nil when the feed has ended.
    package var olderCursor: String?
    /// `previous_cursor`: the newer-side cursor.
    package var newerCursor: String?

    /// Creates a page.
    package init(items: [FixtureItem], olderCursor: String?, newerCursor: String?) {
        self.items = items
        self.olderCursor = olderCursor
        self.newerCursor = newerCursor
    }
}

/// A problem with one item that a ``FixtureReader/stream(contentsOf:pageSize:checkingDuplicates:_:)``
/// body found (a repeated id, met while writing): the stream reports it at the item's line and column.
package struct FixtureProblem: Error {
    /// The item's byte offset in the file.
    package var offset: Int
    /// What is wrong, as a sentence.
    package var reason: String

    /// A problem at `offset`.
    package init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }
}

/// The shapes a fixture file can have.
package enum FixtureFormat: String, Sendable, CaseIterable {
    /// A JSON array of items.
    case json
    /// One item object per line.
    case ndjson
    /// A JSON array of page objects.
    case pages
    /// One page object (a captured server response).
    case page
}
