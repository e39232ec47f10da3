import Foundation

/// One document a search found, with the row that shows it.
package struct SearchHit: Sendable, Equatable {
    /// The document's id: the order of recency (a larger one was indexed first later).
    package var doc: Int64
    /// FTS5's rank (bm25, smaller is better); 0 when ordered by recency.
    package var rank: Double
    /// The order the search ran in (see ``SearchRanking``).
    package var order: SearchHitOrder
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
    /// Whether the index holds its index of three-letter prefixes (see
    /// ``PageStore/searchTablesSQL``); an index made by an earlier PagedStore lacks it until
    /// ``PageStore/rebuildSearchIndex(progress:)``.
    package var indexesPrefixes: Bool
}

extension PageStore {
    /// What `feed`'s search holds; nil for a feed whose type declares no searchable fields.
    package func searchSummary(of feed: FeedRecord) throws(StorageError) -> SearchSummary? {
        guard let recorded = feed.searchFields else { return nil }
        guard try hasSearchTables() else {
            return SearchSummary(
                fields: searchFieldList(recorded), documents: 0, hasBacklog: true, indexBytes: 0, indexesPrefixes: true)
        }
        let documents =
            try connection.integer("SELECT count(*) FROM search_doc WHERE owner = ?", Self.searchOwner(of: feed)) ?? 0
        let definition = try connection.rows("SELECT sql FROM sqlite_schema WHERE name = 'item_search'") {
            $0.string(0) ?? ""
        }
        return SearchSummary(
            fields: searchFieldList(recorded), documents: documents, hasBacklog: feed.searchBacklog != nil,
            indexBytes: searchIndexBytes(), indexesPrefixes: definition.first?.contains("prefix") ?? false)
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

/// Where a window of search results continues: after the hit with this rank and document, in the
/// order the first window ran in (a window never changes the order of those before it).
package struct SearchHitKey: Sendable, Equatable {
    /// The last hit's rank (0 in recency order).
    package var rank: Double
    /// The last hit's document.
    package var doc: Int64
    /// The order the windows run in.
    package var order: SearchHitOrder
}

extension PageStore {
    /// The documents matching the FTS5 `expression` (built by ``SearchQuery``), in `asked` order
    /// as ``SearchRanking`` runs it, at most `limit`, each with a row that shows it; with `feedIDs`,
    /// only items held by those feeds.
    /// - Parameters:
    ///   - lastWordIsPrefix: Whether the expression's last word is still being typed.
    ///   - broadPrefixMatches: How many matches such a search ranks before it lists them newest
    ///     first.
    ///   - after: The last hit of the previous window: the window continues below it (keyset), in
    ///     its order.
    package func searchHits(
        matching expression: String, order asked: SearchHitOrder, lastWordIsPrefix: Bool = false,
        broadPrefixMatches: Int = SearchRanking.broadPrefixMatches, feedIDs: [Int64]? = nil,
        after: SearchHitKey? = nil, limit: Int
    ) throws(StorageError) -> [SearchHit] {
        guard try hasSearchTables() else { return [] }
        try writeSearchText()
        let allowed = feedIDs.map(Set.init)
        var hits: [SearchHit] = []
        // Candidates come from FTS5 with their documents' owners and rows, so that it ranks and
        // cuts before any row is read; a few more than wanted when only some feeds are searched. A
        // round that finds too few (documents of other feeds, or that no row shows) asks for more.
        let margin = feedIDs == nil ? 0 : 8
        var wanted = limit > Int.max - margin ? Int.max : max(limit, 0) + margin
        var order = after?.order ?? asked
        var last = after.map { (rank: $0.rank, doc: $0.doc) }
        // The newest documents the rule counts are the first round's when it lists newest first:
        // without an index of its length, FTS5 merges the documents of every word a prefix opens
        // at each statement (145 ms for "c" among a million posts), so the merge runs once.
        var counted: [Int64]? = nil
        if after == nil,
            let count = SearchRanking.matchesToCount(
                asked: asked, lastWordIsPrefix: lastWordIsPrefix, broadAt: broadPrefixMatches)
        {
            let newest = try connection.rows(
                "SELECT rowid FROM item_search WHERE item_search MATCH ? ORDER BY rowid DESC LIMIT ?", expression,
                count
            ) { $0.int64(0) }
            order = SearchRanking.order(
                asked: asked, lastWordIsPrefix: lastWordIsPrefix, matches: newest.count, broadAt: broadPrefixMatches)
            if order == .recency, newest.count >= wanted { counted = Array(newest.prefix(wanted)) }
        }
        while hits.count < limit {
            let candidates: [SearchCandidate]
            if let documents = counted {
                candidates = try searchCandidates(documents: documents)
                counted = nil
            } else {
                candidates = try searchCandidates(expression, order: order, after: last, limit: wanted)
            }
            for candidate in candidates where hits.count < limit {
                guard let shown = try row(showing: candidate, in: allowed, matching: expression) else {
                    continue
                }
                hits.append(
                    SearchHit(
                        doc: candidate.doc, rank: candidate.rank, order: order, feedKey: shown.key, item: shown.item,
                        searchFields: shown.searchFields))
            }
            guard candidates.count == wanted, let next = candidates.last else { break }
            last = (next.rank, next.doc)
            wanted = wanted.multipliedReportingOverflow(by: 4).overflow ? wanted : wanted * 4
        }
        return hits
    }

    /// One document a search's FTS5 query found: its place in the order, whose it is (nil for a
    /// document left by a writer that bypassed the index), and for a feed's own item its row (nil
    /// when the feed no longer holds it).
    private struct SearchCandidate {
        var rank: Double
        var doc: Int64
        var owner: (owner: String, itemID: String)?
        var ownRow: (key: String, item: StoredItem, searchFields: String?, feedID: Int64)? = nil
    }

    /// The next `limit` documents matching `expression` below `after`, in `order`: the FTS5 table
    /// alone orders and cuts (its rowid is the document's id), and only the documents it kept are
    /// joined to their owners and, for a feed's own items, to their rows.
    private func searchCandidates(
        _ expression: String, order: SearchHitOrder, after: (rank: Double, doc: Int64)?, limit: Int
    ) throws(StorageError) -> [SearchCandidate] {
        let (rank, below, orderBy): (String, String, String)
        switch (order, after) {
        case (.relevance, nil): (rank, below, orderBy) = ("rank", "", "rank, rowid DESC")
        case (.relevance, _):
            (rank, below, orderBy) = ("rank", "AND (rank > ?2 OR (rank = ?2 AND rowid < ?3))", "rank, rowid DESC")
        case (.recency, nil): (rank, below, orderBy) = ("0.0", "", "rowid DESC")
        case (.recency, _): (rank, below, orderBy) = ("0.0", "AND rowid < ?3", "rowid DESC")
        }
        let sql = """
            SELECT found.rowid, found.rank, \(Self.ownersAndRows)
            FROM (
                SELECT rowid, \(rank) AS rank FROM item_search WHERE item_search MATCH ?1 \(below)
                ORDER BY \(orderBy) LIMIT ?4
            ) AS found
            LEFT JOIN search_doc ON search_doc.doc = found.rowid \(Self.joinOfOwnRows)
            """
        return try connection.withStatement(sql) { statement throws(StorageError) in
            try statement.bind(1, expression)
            if let after {
                if order == .relevance { try statement.bind(2, after.rank) }
                try statement.bind(3, after.doc)
            }
            try statement.bind(4, limit)
            var found: [SearchCandidate] = []
            while try statement.step() { found.append(Self.candidate(statement)) }
            // In the FTS5 query's order (the joins need not keep it): ranks are 0 in recency order.
            return found.sorted { $0.rank < $1.rank || ($0.rank == $1.rank && $0.doc > $1.doc) }
        }
    }

    /// The candidates for `documents` (newest first, as the rule read them), in their order, each
    /// joined to its owner and row as ``searchCandidates(_:order:after:limit:)`` joins them: one
    /// statement for each ``PageStore/idsPerLookup``.
    private func searchCandidates(documents: [Int64]) throws(StorageError) -> [SearchCandidate] {
        let slots = Self.idsPerLookup
        var joined: [Int64: SearchCandidate] = [:]
        for start in stride(from: 0, to: documents.count, by: slots) {
            try connection.withStatement(Self.documentsCandidatesSQL) { statement throws(StorageError) in
                for slot in 0..<slots {
                    let index = start + slot
                    try statement.bind(Int32(slot + 1), index < documents.count ? documents[index] : nil)
                }
                while try statement.step() {
                    let candidate = Self.candidate(statement)
                    joined[candidate.doc] = candidate
                }
            }
        }
        return documents.map { joined[$0] ?? SearchCandidate(rank: 0, doc: $0, owner: nil) }
    }

    /// ``searchCandidates(documents:)``'s statement, built once: it runs on every broad keystroke.
    private static let documentsCandidatesSQL = """
        SELECT search_doc.doc, 0.0, \(ownersAndRows) FROM search_doc \(joinOfOwnRows)
        WHERE search_doc.doc IN \(inListOfLookup(from: 1))
        """

    /// The columns of a candidate's owner and, for a feed's own item, its row (see
    /// ``candidate(_:)``), after the document and its rank.
    private static let ownersAndRows = """
        search_doc.owner, search_doc.item_id,
            feed.key, item.item_id, item.position, item.section, item.payload, item.feed_id, feed.search_fields
        """

    /// A feed's own item is owned by `f` and the feed's id: its row is found by the item table's
    /// key, the id compared back as text so that an owner edited by hand matches nothing.
    private static let joinOfOwnRows = """
        LEFT JOIN item ON item.feed_id = CAST(substr(search_doc.owner, 2) AS INTEGER)
            AND search_doc.owner = 'f' || item.feed_id AND item.item_id = search_doc.item_id
        LEFT JOIN feed ON feed.id = item.feed_id
        """

    /// The candidate a statement's row holds: the document, its rank, then ``ownersAndRows``.
    private static func candidate(_ statement: Statement) -> SearchCandidate {
        let owner = statement.string(2).flatMap { owner in statement.string(3).map { (owner, $0) } }
        var candidate = SearchCandidate(rank: statement.double(1), doc: statement.int64(0), owner: owner)
        if !statement.isNull(5) {
            let row = searchRow(statement, from: 4)
            candidate.ownRow = (row.key, row.item, row.searchFields, statement.int64(9))
        }
        return candidate
    }

    /// The row that shows `candidate`'s document, in one of `allowed` feeds when given; nil when
    /// none does (a document left by a writer that bypassed the index). A shared item's match shows
    /// the first feed by key holding it whose row the query matches (see ``SharedSearchDocument``).
    private func row(
        showing candidate: SearchCandidate, in allowed: Set<Int64>?, matching expression: String
    ) throws(StorageError) -> (key: String, item: StoredItem, searchFields: String?)? {
        if let own = candidate.ownRow {
            return allowed?.contains(own.feedID) ?? true ? (own.key, own.item, own.searchFields) : nil
        }
        guard let (owner, itemID) = candidate.owner, owner.hasPrefix("s") else { return nil }
        let sql = """
            SELECT feed.key, item.item_id, item.position, item.section, item.payload, item.feed_id, feed.search_fields
            FROM item JOIN feed ON feed.id = item.feed_id
            WHERE item.item_id = ?1 AND item.flags & 2 AND feed.shared_type = ?2 AND feed.search_fields IS NOT NULL
            ORDER BY feed.key
            """
        let holders = try connection.withStatement(sql) { statement throws(StorageError) in
            try statement.bind(1, itemID)
            try statement.bind(2, String(owner.dropFirst()))
            var rows: [(key: String, item: StoredItem, searchFields: String?, feedID: Int64)] = []
            while try statement.step() {
                let row = Self.searchRow(statement, from: 0)
                rows.append((row.key, row.item, row.searchFields, statement.int64(5)))
            }
            return rows
        }
        // Whether every holder shows one copy, the feeds searched or not: one that shows another
        // may be where the match is.
        let sameCopy = holders.dropFirst().allSatisfy {
            $0.item.payload == holders.first?.item.payload && $0.searchFields == holders.first?.searchFields
        }
        let rows = holders.filter { allowed?.contains($0.feedID) ?? true }
        let matching =
            sameCopy
            ? []
            : try textsMatching(
                expression,
                rows.map {
                    SearchText(payload: $0.item.payload, fields: searchFieldList($0.searchFields ?? ""))?.indexed
                })
        let shown = SharedSearchDocument.rowShowing(count: rows.count, sameCopy: sameCopy) { matching.contains($0) }
        return shown.map { (rows[$0].key, rows[$0].item, rows[$0].searchFields) }
    }

    /// The row read from `statement`'s columns from `first` on: the feed's key, the item's id,
    /// position, section and payload, its feed's id, and the feed's searchable fields.
    private static func searchRow(
        _ statement: Statement, from first: Int32
    ) -> (key: String, item: StoredItem, searchFields: String?) {
        (
            statement.string(first) ?? "",
            StoredItem(
                itemID: statement.string(first + 1) ?? "", position: statement.int64(first + 2),
                section: statement.string(first + 3), payload: statement.data(first + 4) ?? Data()),
            statement.string(first + 6)
        )
    }
}

extension PageStore {
    /// The indices of `texts` (index text, see ``SearchText/indexed``; nil for none) that the FTS5
    /// `expression` matches, read by FTS5 itself with the index's tokenizer, in a table of
    /// ``searchProbe``: two copies of one item are told apart as the index folds their words (ß
    /// is not ss there), which the highlight's folding only comes close to. The file's connection
    /// may not write even a temporary table (a read-only store).
    func textsMatching(_ expression: String, _ texts: [String?]) throws(StorageError) -> Set<Int> {
        let probe: Connection
        if let made = searchProbe {
            probe = made
        } else {
            probe = try Connection(path: ":memory:", mode: .readWrite)
            try probe.execute("CREATE VIRTUAL TABLE probe USING fts5(body, tokenize = '\(Self.searchTokenizer)')")
            searchProbe = probe
        }
        try probe.execute("DELETE FROM probe")
        try probe.withStatement("INSERT INTO probe (rowid, body) VALUES (?, ?)") { statement throws(StorageError) in
            for (index, text) in texts.enumerated() {
                guard let text else { continue }
                try statement.bind(1, Int64(index))
                try statement.bind(2, text)
                _ = try statement.step()
                statement.reset()
            }
        }
        return Set(try probe.rows("SELECT rowid FROM probe WHERE probe MATCH ?", expression) { Int($0.int64(0)) })
    }
}
