import Foundation
import PagedStore
import PagedStoreFixtures

/// SEARCH: searching a cache of a million posts, against the same FTS5 queries run directly, and
/// what indexing costs a write.
extension BenchWorkloads {
    /// Words of which each post's content holds one, so that a query of one matches about 1% of posts.
    static let searchVocabulary = [
        "otter", "heron", "walrus", "badger", "falcon", "lynx", "marmot", "ibis", "puffin", "bison",
        "compiler", "kernel", "lattice", "vector", "socket", "buffer", "cursor", "thread", "closure", "actor",
        "harbor", "meadow", "glacier", "canyon", "delta", "tundra", "savanna", "reef", "dune", "fjord",
        "violin", "cello", "oboe", "tuba", "banjo", "sitar", "lute", "harp", "drum", "flute",
        "saffron", "cumin", "fennel", "ginger", "nutmeg", "paprika", "sumac", "thyme", "basil", "clove",
        "comet", "nebula", "quasar", "pulsar", "aurora", "eclipse", "meteor", "orbit", "zenith", "nova",
        "granite", "basalt", "quartz", "marble", "slate", "shale", "obsidian", "jade", "opal", "amber",
        "lantern", "compass", "anchor", "beacon", "kettle", "ladder", "mirror", "pillow", "quilt", "ribbon",
        "tango", "waltz", "polka", "samba", "rumba", "salsa", "bolero", "mambo", "foxtrot", "jive",
        "sonnet", "ballad", "limerick", "haiku", "elegy", "ode", "epic", "fable", "parable", "saga",
    ]

    /// A post of the SEARCH cache: HTML content of a few sentences holding one vocabulary word, and
    /// an author, as a timeline API sends them.
    func searchPost(_ number: Int) -> Data {
        let random = { (tag: UInt64) in Int(items.random(tag: tag, UInt64(number)) % 1_000_000) }
        let body =
            String(decoding: items.payload(number), as: UTF8.self)
            .components(separatedBy: "\"body\":\"").last?.dropLast(2) ?? ""
        let word = Self.searchVocabulary[random(11) % Self.searchVocabulary.count]
        let content =
            "<p>\(body.prefix(60)) <a href=\\\"https://social.example/tags/\(word)\\\" class=\\\"hashtag\\\">#<span>"
            + "\(word)</span></a> \(body.dropFirst(60))</p><p>Caf&eacute; notes &amp; more, \(number % 997)</p>"
        let json =
            #"{"id":"\#(items.itemID(number))","content":"\#(content)","account":{"display_name":"User \#(random(2) % 10_000)"}}"#
        return Data(json.utf8)
    }

    /// SEARCH: a searchable feed of `posts` posts seeded (indexed in the seed's transactions), then
    /// the first screen (50 results) of one-word queries matching about 1% of posts and of
    /// three-letter prefixes as typed, through the engine and through FTS5 directly; the index's
    /// size against the payloads'; and W1 with a searchable type against W1 without.
    func search(posts: Int) async throws {
        let path = dir + "/search.db"
        removeDatabase(path)
        let fields = ["content", "account.display_name"]
        let seedStarted = BenchClock.wall()
        let queue = try DatabaseQueue(path: path)
        for chunk in stride(from: 0, to: posts, by: 100_000) {
            let range = chunk..<min(chunk + 100_000, posts)
            let pages = stride(from: range.lowerBound, to: range.upperBound, by: Self.pageItems).map { start in
                let end = min(start + Self.pageItems, range.upperBound)
                return FixturePage(
                    items: (start..<end).map { FixtureItem(id: items.itemID($0), section: nil, json: searchPost($0)) },
                    olderCursor: end < posts ? "c:\(end)" : nil, newerCursor: nil)
            }
            _ = try queue.write { store in
                var feed = try store.ensureFeed(key: "search")
                _ = try store.setSearchFields(fields, of: &feed)
                return try store.seed(pages, into: "search")
            }
        }
        let seedSeconds = BenchClock.wall() - seedStarted
        let sizes = try queue.read { store in
            (
                index: store.searchIndexBytes() ?? 0,
                payloads: try store.connection.integer("SELECT sum(length(payload)) FROM item") ?? 0
            )
        }
        print(
            "SEARCH impl=pagedstore op=seed posts=\(posts) total_s=\(String(format: "%.2f", seedSeconds)) "
                + "posts_per_s=\(Int(Double(posts) / seedSeconds)) index_bytes=\(sizes.index) "
                + "payload_bytes=\(sizes.payloads) "
                + "index_over_payloads=\(BenchClock.format(Double(sizes.index) / Double(max(sizes.payloads, 1))))")
        queue.close()
        let words = Self.searchVocabulary
        // A word as searched for, finished (a space after it): typed without one it would be a word
        // being typed, listed newest first once it matches more than the engine ranks.
        try timeSearches("word", (0..<60).map { words[$0 % words.count] + " " }, path: path)
        try timeSearches("prefix", (0..<60).map { String(words[($0 * 7) % words.count].prefix(3)) }, path: path)
        // The other keystrokes of a word being typed, whose prefixes have no index of their own
        // length: twenty words each, not ranked by hand (a letter's best 50 take seconds).
        for length in [1, 2, 4, 5] {
            try timeSearches(
                "prefix\(length)", (0..<20).map { String(words[($0 * 13) % words.count].prefix(length)) }, path: path)
        }
        // What indexing costs a write: W1 and W1 with a searchable type, alternated.
        var plain: [Double] = []
        var searchable: [Double] = []
        for _ in 0..<2 {
            plain.append(try await appendViaNextPage(label: "W1", codec: JSONItem.codec) { $0 })
            searchable.append(
                try await appendViaNextPage(label: "W1search", codec: SearchBenchItem.codec) {
                    SearchBenchItem(post: $0)
                })
        }
        let ratio = (plain.max() ?? 0) / max(searchable.max() ?? 1, 1)
        print("SEARCH impl=pagedstore op=append-cost searchable_over_plain=\(BenchClock.format(ratio))")
        // The same with ids in the server's order (see W1S): the index by id then costs no random leaves.
        let ordered = try await appendViaNextPage(label: "W1-ordered-ids", codec: JSONItem.codec, orderedIDs: true) {
            $0
        }
        let orderedSearchable = try await appendViaNextPage(
            label: "W1search-ordered-ids", codec: SearchBenchItem.codec, orderedIDs: true
        ) { SearchBenchItem(post: $0) }
        print(
            "SEARCH impl=pagedstore op=append-cost-ordered-ids "
                + "searchable_over_plain=\(BenchClock.format(ordered / max(orderedSearchable, 1)))")
        // A searchable type shared across feeds (one feed here): each row's one document reads
        // what every row of its item shows.
        var unshared: [Double] = []
        var shared: [Double] = []
        for _ in 0..<2 {
            unshared.append(
                try await appendViaNextPage(label: "W1search", codec: SearchBenchItem.codec) {
                    SearchBenchItem(post: $0)
                })
            shared.append(
                try await appendViaNextPage(label: "W1search-shared", codec: SharedSearchBenchItem.codec) {
                    SharedSearchBenchItem(post: $0)
                })
        }
        print(
            "SEARCH impl=pagedstore op=append-cost-shared "
                + "shared_over_unshared=\(BenchClock.format((unshared.max() ?? 0) / max(shared.max() ?? 1, 1)))")
    }

    /// Times the first screen (50 results, best first) of each query through the engine's search
    /// (as `FeedStore.search` runs it, decoding nothing) and the same FTS5 statements written by
    /// hand, joined to the rows' payloads, run directly: for a word being typed, its newest matches
    /// read first, and the newest 50 shown when they are more than ``SearchRanking`` ranks; the
    /// best 50 otherwise. The two take turns at running first, since the second finds the first's rows
    /// in SQLite's cache. A three-letter prefix's best 50 of all its matches, as the search ranked
    /// them before that rule, is timed by hand too (`ranked_`).
    private func timeSearches(_ label: String, _ queries: [String], path: String) throws {
        let queue = try DatabaseQueue(path: path, mode: .readOnly)
        let typing = label.hasPrefix("prefix")
        let broadAt = SearchRanking.broadPrefixMatches
        var engine: [Double] = []
        var direct: [Double] = []
        var ranked: [Double] = []
        var found = 0
        var broad = 0
        for (index, query) in queries.enumerated() {
            let expression = "\"\(query.trimmingCharacters(in: .whitespaces))\"" + (typing ? " *" : "")
            let throughTheEngine = {
                let start = BenchClock.wall()
                let matches = try queue.read { store in try CachedSearch.find(query, in: store, feeds: nil, limit: 50) }
                engine.append(BenchClock.wall() - start)
                found += matches.count
            }
            let byHand = {
                let start = BenchClock.wall()
                let newestFirst = try queue.read { store in
                    // A word being typed: its newest documents read once, the first 50 of them
                    // shown when they are more than the engine ranks.
                    let newest =
                        typing
                        ? try store.connection.rows(
                            "SELECT rowid FROM item_search WHERE item_search MATCH ? ORDER BY rowid DESC LIMIT ?",
                            expression, broadAt + 1
                        ) { $0.int64(0) } : []
                    if newest.count > broadAt {
                        let documents = "[" + newest.prefix(50).map(String.init).joined(separator: ",") + "]"
                        _ = try store.connection.rows(
                            """
                            SELECT item.payload FROM search_doc
                            JOIN item ON item.feed_id = 1 AND item.item_id = search_doc.item_id
                            WHERE search_doc.doc IN (SELECT value FROM json_each(?))
                            """, documents
                        ) { $0.data(0) }
                        return true
                    }
                    _ = try store.connection.rows(Self.bestFirstScreenSQL, expression) {
                        $0.data(0)
                    }
                    return false
                }
                direct.append(BenchClock.wall() - start)
                if newestFirst { broad += 1 }
            }
            if index.isMultiple(of: 2) {
                try throughTheEngine()
                try byHand()
            } else {
                try byHand()
                try throughTheEngine()
            }
            guard label == "prefix" else { continue }
            let start = BenchClock.wall()
            _ = try queue.read { store in
                try store.connection.rows(Self.bestFirstScreenSQL, expression) { $0.data(0) }
            }
            ranked.append(BenchClock.wall() - start)
        }
        let median = { (times: [Double]) in times.sorted()[times.count / 2] }
        print(
            "SEARCH impl=pagedstore op=first-screen query=\(label) results=\(found / max(queries.count, 1)) "
                + "newest_first=\(broad) \(BenchClock.latencyFields(engine)) fts5_\(BenchClock.latencyFields(direct)) "
                + "over_fts5=\(BenchClock.format(median(engine) / max(median(direct), 1e-9)))"
                + (ranked.isEmpty ? "" : " ranked_\(BenchClock.latencyFields(ranked))"))
    }

    /// What one hand-written query returns: the payloads of the best 50 matches.
    private static let bestFirstScreenSQL = """
        SELECT item.payload FROM item_search JOIN search_doc ON search_doc.doc = item_search.rowid
        JOIN item ON item.feed_id = 1 AND item.item_id = search_doc.item_id
        WHERE item_search MATCH ? ORDER BY item_search.rank LIMIT 50
        """
}

/// A W1 post whose type declares searchable fields: W1 with the index kept in every write.
struct SearchBenchItem: FeedItem {
    static let searchableFields = ["title", "body"]
    var post: JSONItem
    var id: String { post.id }

    /// The post's JSON, as ``JSONItem`` stores it.
    static let codec = ItemCodec<SearchBenchItem>(
        storesText: true, encode: { try JSONItem.codec.encode($0.post) },
        decode: { SearchBenchItem(post: try JSONItem.codec.decode($0)) })
}

/// ``SearchBenchItem`` shared across feeds (``FeedItem/sharedItemType``).
struct SharedSearchBenchItem: FeedItem {
    static let sharedItemType: String? = "post"
    static let searchableFields = SearchBenchItem.searchableFields
    var post: JSONItem
    var id: String { post.id }

    /// The post's JSON, as ``JSONItem`` stores it.
    static let codec = ItemCodec<SharedSearchBenchItem>(
        storesText: true, encode: { try JSONItem.codec.encode($0.post) },
        decode: { SharedSearchBenchItem(post: try JSONItem.codec.decode($0)) })
}
