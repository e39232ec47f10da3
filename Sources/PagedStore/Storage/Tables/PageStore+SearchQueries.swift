import Foundation

/// One document a search found, with the row that shows it.
package struct SearchHit: Sendable, Equatable {
    /// The document's id: the order of recency (a larger one was indexed first later).
    package var doc: Int64
    /// FTS5's rank (bm25, smaller is better); 0 when ordered by recency.
    package var rank: Double
    /// The feed of the row that shows it (for a shared item, the first feed holding it).
    package var feedKey: String
    /// The row.
    package var item: StoredItem
    /// The searchable fields the row's feed records (see ``FeedRecord/searchFields``).
    package var searchFields: String?
}

/// What a feed's search holds, as `pagedb show` tells it.
package struct SearchSummary: Sendable, Equatable {
    /// The fields its rows are indexed by.
    package var fields: [String]
    /// Its documents: one a row, or, for a feed of a shared type, one an item of that type.
    package var documents: Int64
    /// Whether rows cached before the fields were declared still wait to be indexed.
    package var hasBacklog: Bool
    /// The bytes the whole file's index takes; nil where SQLite cannot say (no `dbstat`).
    package var indexBytes: Int64?
}

extension PageStore {
    /// What `feed`'s search holds; nil for a feed whose type declares no searchable fields.
    package func searchSummary(of feed: FeedRecord) throws(StorageError) -> SearchSummary? {
        guard let recorded = feed.searchFields else { return nil }
        guard try hasSearchTables() else {
            return SearchSummary(fields: searchFieldList(recorded), documents: 0, hasBacklog: true, indexBytes: 0)
        }
        let documents =
            try connection.integer("SELECT count(*) FROM search_doc WHERE owner = ?", Self.searchOwner(of: feed)) ?? 0
        return SearchSummary(
            fields: searchFieldList(recorded), documents: documents, hasBacklog: feed.searchBacklog != nil,
            indexBytes: searchIndexBytes())
    }

    /// The bytes the search index's tables take in the file; nil where SQLite cannot say (`dbstat`
    /// is an optional part of SQLite).
    package func searchIndexBytes() -> Int64? {
        (try? connection.int64(
            "SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'item_search%' OR name LIKE 'search_doc%'")) ?? nil
    }
}

/// How search results are ordered.
package enum SearchHitOrder: Sendable, Equatable {
    /// Best match first (FTS5's bm25), then the most recently indexed.
    case relevance
    /// The most recently indexed first.
    case recency
}

extension PageStore {
    /// The documents matching the FTS5 `expression` (built by ``SearchQuery``), in `order`, at most
    /// `limit`, each with a row that shows it; with `feedIDs`, only items held by those feeds.
    /// - Parameter after: The rank and document of the last hit of the previous window: the window
    ///   continues below it (keyset).
    package func searchHits(
        matching expression: String, order: SearchHitOrder, feedIDs: [Int64]? = nil,
        after: (rank: Double, doc: Int64)? = nil,
        limit: Int
    ) throws(StorageError) -> [SearchHit] {
        guard try hasSearchTables() else { return [] }
        try writeSearchText()
        let allowed = feedIDs.map(Set.init)
        var hits: [SearchHit] = []
        var last = after
        // Candidates come from FTS5 alone, a few more than wanted at a time, so that it ranks and
        // cuts before any join; a round that finds too few (documents of feeds not searched) asks
        // for more the next time.
        var wanted = limit > Int.max - 8 ? Int.max : max(limit, 0) + 8
        while hits.count < limit {
            let candidates = try searchCandidates(expression, order: order, after: last, limit: wanted)
            for candidate in candidates where hits.count < limit {
                guard let shown = try row(showingDocument: candidate.doc, in: allowed) else { continue }
                hits.append(
                    SearchHit(
                        doc: candidate.doc, rank: candidate.rank, feedKey: shown.key, item: shown.item,
                        searchFields: shown.searchFields))
            }
            guard candidates.count == wanted, let next = candidates.last else { break }
            last = next
            wanted = wanted.multipliedReportingOverflow(by: 4).overflow ? wanted : wanted * 4
        }
        return hits
    }

    /// The next `limit` documents matching `expression` below `after`, in `order`, from the FTS5
    /// table alone (its rowid is the document's id).
    private func searchCandidates(
        _ expression: String, order: SearchHitOrder, after: (rank: Double, doc: Int64)?, limit: Int
    ) throws(StorageError) -> [(rank: Double, doc: Int64)] {
        let sql: String
        switch (order, after) {
        case (.relevance, nil):
            sql = "SELECT rowid, rank FROM item_search WHERE item_search MATCH ?1 ORDER BY rank, rowid DESC LIMIT ?4"
        case (.relevance, _):
            sql = """
                SELECT rowid, rank FROM item_search WHERE item_search MATCH ?1
                AND (rank > ?2 OR (rank = ?2 AND rowid < ?3)) ORDER BY rank, rowid DESC LIMIT ?4
                """
        case (.recency, nil):
            sql = "SELECT rowid, 0.0 FROM item_search WHERE item_search MATCH ?1 ORDER BY rowid DESC LIMIT ?4"
        case (.recency, _):
            sql =
                "SELECT rowid, 0.0 FROM item_search WHERE item_search MATCH ?1 AND rowid < ?3 ORDER BY rowid DESC LIMIT ?4"
        }
        return try connection.withStatement(sql) { statement throws(StorageError) in
            try statement.bind(1, expression)
            if let after {
                if order == .relevance { try statement.bind(2, after.rank) }
                try statement.bind(3, after.doc)
            }
            try statement.bind(4, limit)
            var found: [(rank: Double, doc: Int64)] = []
            while try statement.step() { found.append((statement.double(1), statement.int64(0))) }
            return found
        }
    }

    /// The row that shows document `doc`, in one of `allowed` feeds when given; nil when none does
    /// (a document left by a writer that bypassed the index).
    private func row(
        showingDocument doc: Int64, in allowed: Set<Int64>?
    ) throws(StorageError) -> (key: String, item: StoredItem, searchFields: String?)? {
        let owned = try connection.withStatement("SELECT owner, item_id FROM search_doc WHERE doc = ?") {
            statement throws(StorageError) -> (owner: String, itemID: String)? in
            try statement.bind(1, doc)
            guard try statement.step(), let owner = statement.string(0), let itemID = statement.string(1) else {
                return nil
            }
            return (owner, itemID)
        }
        guard let owned else { return nil }
        return try row(showing: owned.itemID, of: owned.owner, in: allowed)
    }

    /// The row that shows the document of `itemID` owned by `owner`, in one of `allowed` feeds when
    /// given; nil when none does (a document left by a writer that bypassed the index).
    private func row(
        showing itemID: String, of owner: String, in allowed: Set<Int64>?
    ) throws(StorageError) -> (key: String, item: StoredItem, searchFields: String?)? {
        let sql: String
        if owner.hasPrefix("f") {
            guard let feedID = Int64(owner.dropFirst()), allowed?.contains(feedID) ?? true else { return nil }
            sql = """
                SELECT feed.key, item.item_id, item.position, item.section, item.payload, item.feed_id, feed.search_fields
                FROM item JOIN feed ON feed.id = item.feed_id WHERE item.feed_id = ?2 AND item.item_id = ?1
                """
            return try connection.withStatement(sql) { statement throws(StorageError) in
                try statement.bind(1, itemID)
                try statement.bind(2, feedID)
                return try statement.step() ? Self.searchRow(statement) : nil
            }
        }
        sql = """
            SELECT feed.key, item.item_id, item.position, item.section, item.payload, item.feed_id, feed.search_fields
            FROM item JOIN feed ON feed.id = item.feed_id
            WHERE item.item_id = ?1 AND item.flags & 2 AND feed.shared_type = ?2 AND feed.search_fields IS NOT NULL
            ORDER BY feed.key
            """
        return try connection.withStatement(sql) { statement throws(StorageError) in
            try statement.bind(1, itemID)
            try statement.bind(2, String(owner.dropFirst()))
            while try statement.step() {
                if allowed?.contains(statement.int64(5)) ?? true { return Self.searchRow(statement) }
            }
            return nil
        }
    }

    private static func searchRow(_ statement: Statement) -> (key: String, item: StoredItem, searchFields: String?) {
        (
            statement.string(0) ?? "",
            StoredItem(
                itemID: statement.string(1) ?? "", position: statement.int64(2), section: statement.string(3),
                payload: statement.data(4) ?? Data()),
            statement.string(6)
        )
    }
}
