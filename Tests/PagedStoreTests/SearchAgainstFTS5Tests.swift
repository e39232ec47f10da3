import Foundation
import PagedStoreFixtures
import TestSupport
import Testing

@testable import PagedStore

/// The search rules against SQLite's real FTS5, with the table the store declares: documents made
/// by ``SearchText`` from varied posts (English, accents, Cyrillic, Han, kana, Hangul, emoji, HTML),
/// and queries from ``SearchQuery``. No query a person can type makes FTS5 fail, and for queries
/// from a known alphabet FTS5 finds exactly the documents a plain scan finds: every term is a run of
/// the document's words (folded), the last a prefix while it is being typed.
///
/// `PAGEDSTORE_SEARCH_SEED=S` replays one seed; the seed is printed and named in every failure.
@Suite(.limit(minutes: 3), .plainRunOnly) struct SearchAgainstFTS5Tests {
    /// The table as the store declares it.
    static let table = "CREATE VIRTUAL TABLE item_search USING fts5(body, tokenize = 'unicode61 remove_diacritics 2')"
    /// A Mastodon status's searchable fields.
    static let fields = ["content", "account.display_name", "media_attachments.description"]

    /// The seed of this run: the environment's, or a fixed one so that CI runs the same cases.
    static var seed: UInt64 {
        ProcessInfo.processInfo.environment["PAGEDSTORE_SEARCH_SEED"].flatMap { UInt64($0) } ?? 0x5EA2_C4F7
    }

    // MARK: - The alphabet the reference scan reads

    /// Words whose folding SQLite and ``Reference/folded(_:)`` agree on: ASCII, Latin-1 accents
    /// (precomposed and decomposed), Cyrillic (whose `й` neither folds), operators as words.
    static let words = [
        "cafe", "Café", "CAFÉ", "Cafe\u{301}", "naïve", "Naive", "résumé", "resume", "tea", "Tea", "the", "cat", "cats",
        "category", "and", "AND", "or", "OR", "NOT", "near", "NEAR", "x", "a", "über", "UBER", "Zoë", "zoe", "piñata",
        "façade", "2024", "42", "v2", "привет", "Привет", "мир", "йогурт", "ЙОД", "hello", "world", "swift", "Ÿes",
    ]
    /// Runs written without spaces.
    static let runs = [
        "東京都に住んでいる", "東京", "京都", "大阪", "日本語", "こんにちは", "カタカナ", "서울에", "한국어", "ｶﾀｶﾅ", "ｉＰｈｏｎｅ",
        "東",
    ]
    /// What separates words: punctuation, FTS5's operator characters, emoji (some of which SQLite
    /// 3.40 takes for letters), spaces of several kinds.
    static let separators = [
        " ", "  ", ", ", ". ", "!", "?", "\n", "🙂", "🤣", "👩‍💻", "—", "(", ")", "\"", "'", "*", "-", "^", ":", "+",
        "/", "#", "@", "\u{A0}", "\t", "…", "。", "、", "🇯🇵", "™", "{", "}", "&", "<", ">",
    ]
    /// Markup around words in a post's HTML, read away by ``SearchText``.
    static let markup = [
        "<p>", "</p>", "<br>", "<br/>", #"<a href="https://x.example/?a=1&amp;b=2">"#, "</a>",
        #"<span class="invisible">"#, "</span>", "&amp;", "&lt;", "&quot;", "&#39;", "&nbsp;", "<!-- c -->",
    ]

    /// A random post's text: words, runs, separators, and in HTML posts, markup.
    static func post(html: Bool, using random: inout SplitMix64) -> String {
        var text = ""
        for _ in 0..<Int.random(in: 1...14, using: &random) {
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5: text += words.randomElement(using: &random) ?? ""
            case 5..<7: text += runs.randomElement(using: &random) ?? ""
            case 7: text += html ? markup.randomElement(using: &random) ?? "" : ""
            default: break
            }
            text += separators.randomElement(using: &random) ?? " "
        }
        return html ? "<p>\(text)</p>" : text
    }

    /// A random item's JSON payload with the three declared fields.
    static func payload(using random: inout SplitMix64) throws -> Data {
        let item: [String: Any] = [
            "content": post(html: Bool.random(using: &random), using: &random),
            "account": ["display_name": post(html: false, using: &random), "followers_count": 3],
            "media_attachments": (0..<Int.random(in: 0...2, using: &random)).map { _ in
                ["description": post(html: false, using: &random)]
            },
        ]
        return try JSONSerialization.data(withJSONObject: item)
    }

    /// A document: its rowid and its text as ``SearchText`` gives it.
    typealias Document = (rowid: Int64, text: SearchText)

    /// The documents, in rowid order (a dictionary's order would change from run to run and break
    /// replaying a seed).
    static func documents(using random: inout SplitMix64) throws -> [Document] {
        try (Int64(1)...300).compactMap { rowid in
            SearchText(payload: try payload(using: &random), fields: fields).map { (rowid, $0) }
        }
    }

    /// An in-memory database with the store's table, holding `documents`.
    static func database(with documents: [Document]) throws -> Connection {
        let connection = try Connection(path: ":memory:", mode: .readWrite)
        try connection.execute(table)
        for (rowid, text) in documents {
            try connection.run("INSERT INTO item_search(rowid, body) VALUES (?, ?)", rowid, text.indexed)
        }
        return connection
    }

    /// The rowids FTS5 finds for `expression`.
    static func found(_ expression: String, in connection: Connection) throws -> Set<Int64> {
        Set(try connection.rows("SELECT rowid FROM item_search WHERE item_search MATCH ?", expression) { $0.int64(0) })
    }

    // MARK: - Tests

    @Test func fts5FindsExactlyWhatAPlainScanFinds() async throws {
        let seed = Self.seed
        print("SearchAgainstFTS5Tests seed: \(seed) (PAGEDSTORE_SEARCH_SEED=\(seed) replays it)")
        var random = SplitMix64(seed: seed)
        let documents = try Self.documents(using: &random)
        let connection = try Self.database(with: documents)
        let scanned = documents.map { (rowid: $0.rowid, words: Reference.words(in: $0.text.display)) }
        let displays = Dictionary(uniqueKeysWithValues: documents.map { ($0.rowid, $0.text.display) })
        var found = 0
        for step in 0..<2_000 {
            // Seconds of work: the pool's threads (one per core) are every other test's too.
            if step % 50 == 0 { await Task.yield() }
            let typed = Self.simpleQuery(from: scanned, using: &random)
            let prefix = Bool.random(using: &random)
            let terms = Reference.terms(in: typed, prefixLast: prefix)
            guard let query = SearchQuery(typed, prefixLastTerm: prefix) else {
                #expect(terms.isEmpty, "seed \(seed) step \(step): \(typed.debugDescription) has terms \(terms)")
                continue
            }
            let expected = Set(scanned.filter { Reference.matches(terms, $0.words) }.map(\.rowid))
            let actual = try Self.found(query.expression, in: connection)
            #expect(
                actual == expected,
                """
                seed \(seed) step \(step): \(typed.debugDescription) (prefix \(prefix)) as \(query.expression.debugDescription)
                FTS5 only: \(actual.subtracting(expected).sorted().map { displays[$0] ?? "" })
                scan only: \(expected.subtracting(actual).sorted().map { displays[$0] ?? "" })
                """)
            if actual != expected { return }
            found += actual.isEmpty ? 0 : 1
        }
        // Both sides are checked: queries that find documents and queries that find none.
        #expect(found > 500 && found < 1_900, "seed \(seed): \(found) of 2,000 queries found documents")
    }

    @Test func noTypedTextMakesFTS5Fail() async throws {
        let seed = Self.seed
        print("SearchAgainstFTS5Tests seed: \(seed) (PAGEDSTORE_SEARCH_SEED=\(seed) replays it)")
        var random = SplitMix64(seed: seed ^ 0xF75)
        let documents = try Self.documents(using: &random)
        let connection = try Self.database(with: documents)
        let displays = documents.map(\.text.display)
        var ran = 0
        for step in 0..<3_000 {
            if step % 50 == 0 { await Task.yield() }
            let typed = Self.hostileQuery(using: &random)
            guard let query = SearchQuery(typed, prefixLastTerm: Bool.random(using: &random)) else {
                #expect(
                    !typed.unicodeScalars.contains(where: Reference.isLetterOrDigit),
                    "seed \(seed) step \(step): \(typed.debugDescription) has words but no query")
                continue
            }
            do {
                _ = try Self.found(query.expression, in: connection)
                ran += 1
            } catch {
                Issue.record(
                    "seed \(seed) step \(step): \(typed.debugDescription) as \(query.expression.debugDescription): \(error)"
                )
                return
            }
            if let display = displays.randomElement(using: &random) {
                let ranges = SearchHighlight.ranges(in: display, of: query)
                #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound < $1.lowerBound })
            }
        }
        #expect(ran > 1_000, "seed \(seed): most hostile texts hold a word (\(ran) of 3,000 did)")
    }

    @Test func theCasesAPersonTriesFirst() throws {
        let posts = [
            "<p>Un caf&eacute; au lait, s&#39;il vous pla&icirc;t</p>", "東京都に住んでいる", "<p>lol🤣 see you</p>",
        ]
        let documents: [Document] = try posts.enumerated().compactMap { index, post in
            let payload = try JSONSerialization.data(withJSONObject: ["content": post])
            return SearchText(payload: payload, fields: ["content"]).map { (Int64(index + 1), $0) }
        }
        #expect(documents.count == 3)
        let connection = try Self.database(with: documents)
        func found(_ typed: String) throws -> Set<Int64>? {
            try SearchQuery(typed).map { try Self.found($0.expression, in: connection) }
        }
        #expect(try found("cafe") == [1])
        #expect(try found("CAFÉ AU LAIT") == [1])
        #expect(try found("plait") == [1])
        #expect(try found("plaits") == [])
        #expect(try found("pla") == [1])
        #expect(try found("pla ") == [])
        #expect(try found("東京") == [2])
        #expect(try found("京都") == [2])
        #expect(try found("住") == [2])
        #expect(try found("都に住") == [2])
        #expect(try found("京東") == [])
        #expect(try found("lol") == [3])
        #expect(try found("lol ") == [3])
        for harmless in ["\"", "(", "-", "*", "   ", "🙂", "🤣", ")", "^", ":", "“”"] {
            #expect(try found(harmless) == nil, "\(harmless.debugDescription)")
        }
        #expect(try found("AND") == [])
        #expect(try found("OR vous") == [])
        #expect(try found("-vous") == [1])
    }

    // MARK: - Queries

    /// A query from the reference alphabet: one to three terms taken from the documents' words
    /// (whole, cut to a prefix, or in other case and accents), runs cut anywhere or shuffled, or
    /// short random words, between separators, sometimes with one after the last.
    static func simpleQuery(from documents: [(rowid: Int64, words: [String])], using random: inout SplitMix64) -> String
    {
        var typed = Int.random(in: 0..<4, using: &random) == 0 ? separators.randomElement(using: &random) ?? "" : ""
        for index in 0..<Int.random(in: 1...3, using: &random) {
            if index > 0 { typed += separators.randomElement(using: &random) ?? " " }
            let document = documents.randomElement(using: &random)?.words ?? []
            switch Int.random(in: 0..<8, using: &random) {
            case 0:
                typed += words.randomElement(using: &random) ?? ""
            case 6:
                let letters = Array("aceinorstuyéü")
                typed += String(
                    (0..<Int.random(in: 1...4, using: &random)).compactMap { _ in letters.randomElement(using: &random)
                    })
            case 7:
                let run = runs.randomElement(using: &random) ?? ""
                typed += String(run.shuffled(using: &random).prefix(Int.random(in: 2...3, using: &random)))
            case 1:
                let word = Array(document.randomElement(using: &random) ?? "")
                typed += String(word.prefix(Int.random(in: 1...max(1, word.count), using: &random)))
            case 2:
                typed += Reference.respelled(document.randomElement(using: &random) ?? "", using: &random)
            case 3:
                let run = Array(runs.randomElement(using: &random) ?? "")
                let start = Int.random(in: 0..<run.count, using: &random)
                typed += String(run[start..<Int.random(in: (start + 1)...run.count, using: &random)])
            default:
                typed += document.randomElement(using: &random) ?? ""
            }
        }
        if Int.random(in: 0..<3, using: &random) == 0 { typed += separators.randomElement(using: &random) ?? " " }
        return typed
    }

    /// Text no one would type, and some they would: random scalars of every plane, combining marks
    /// with nothing to combine with, NUL, quotes, operators and their characters, unbalanced
    /// parentheses, emoji, long and very long runs, thousands of words, nothing but spaces.
    static func hostileQuery(using random: inout SplitMix64) -> String {
        let pieces = [
            "\"", "\"\"", "*", "-", "^", ":", "(", ")", "((", "))", "AND", "OR", "NOT", "NEAR", "NEAR(", "+", "{", "}",
            "col:", "\u{0}", "\u{301}", "\u{332}", "\u{20DD}", "\u{FE0F}", "\u{200D}", "🙂", "🤣", "👩‍💻", "🇯🇵", " ", "   ",
            "\n", "\t", "東京", "ｶﾀｶﾅ", "é", "e\u{301}", "ß", "'", "\\", "%", "_", "’", "a", "Z", "9",
        ]
        var typed = ""
        switch Int.random(in: 0..<10, using: &random) {
        case 0:
            typed = String(repeating: " ", count: Int.random(in: 0...50, using: &random))
        case 1:
            let piece = pieces.randomElement(using: &random) ?? ""
            typed = String(repeating: piece, count: Int.random(in: 100...5_000, using: &random))
        case 2:
            typed = (0..<Int.random(in: 100...3_000, using: &random)).map { _ in
                words.randomElement(using: &random) ?? ""
            }.joined(separator: pieces.randomElement(using: &random) ?? " ")
        default:
            for _ in 0..<Int.random(in: 1...40, using: &random) {
                if Bool.random(using: &random) {
                    typed += pieces.randomElement(using: &random) ?? ""
                } else {
                    typed.unicodeScalars.append(randomScalar(using: &random))
                }
            }
        }
        return typed
    }

    /// A valid scalar of any plane, most often from the planes that hold text.
    static func randomScalar(using random: inout SplitMix64) -> Unicode.Scalar {
        let limit: UInt32 = Bool.random(using: &random) ? 0xFFFF : 0x10FFFF
        while true {
            if let scalar = Unicode.Scalar(UInt32.random(in: 0...limit, using: &random)) { return scalar }
        }
    }
}

/// The plain scan the FTS5 results are checked against, written apart from the rules and for the
/// test's alphabet only: a word is a run of letters and digits, every character of ``runs`` is a
/// word of its own, anything else separates, and folding lowers case and takes Latin-1 accents off.
enum Reference {
    /// The characters of the runs written without spaces.
    static let segmented = Set(SearchAgainstFTS5Tests.runs.joined())

    /// Whether `character` belongs to a word.
    static func isLetter(_ character: Character) -> Bool {
        !segmented.contains(character) && (character.isLetter || character.isNumber)
    }

    /// Whether `scalar` is a letter or a digit of any script (Unicode's categories L and N).
    static func isLetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber,
            .letterNumber, .otherNumber:
            true
        default: false
        }
    }

    /// The folded words of `text`, in order.
    static func words(in text: String) -> [String] {
        pieces(of: text).words
    }

    /// The folded words of `text`, each with whether it touches the word before (no separator
    /// between), and whether `text` ends in a word.
    static func pieces(of text: String) -> (words: [String], touching: [Bool], endsInWord: Bool) {
        var words: [String] = []
        var touching: [Bool] = []
        var current = ""
        var previousWasWord = false
        for character in text {
            if segmented.contains(character) {
                if !current.isEmpty { words.append(current) }
                touching.append(previousWasWord)
                words.append(folded(character))
                current = ""
                previousWasWord = true
            } else if isLetter(character) {
                if current.isEmpty {
                    touching.append(previousWasWord)
                }
                current += folded(character)
                previousWasWord = true
            } else {
                if !current.isEmpty { words.append(current) }
                current = ""
                previousWasWord = false
            }
        }
        if !current.isEmpty { words.append(current) }
        return (words, touching, previousWasWord)
    }

    /// The terms of a typed query: runs of touching words, and whether the last is a prefix.
    static func terms(in typed: String, prefixLast: Bool) -> [(words: [String], isPrefix: Bool)] {
        let (words, touching, endsInWord) = pieces(of: typed)
        var terms: [[String]] = []
        for (word, touches) in zip(words, touching) {
            if touches, !terms.isEmpty { terms[terms.count - 1].append(word) } else { terms.append([word]) }
        }
        return terms.enumerated().map { ($1, prefixLast && endsInWord && $0 == terms.count - 1) }
    }

    /// Whether a document of `words` holds every term: its words one after another, the last word
    /// of a prefix term as the start of a word.
    static func matches(_ terms: [(words: [String], isPrefix: Bool)], _ words: [String]) -> Bool {
        terms.allSatisfy { term in
            guard !term.words.isEmpty, term.words.count <= words.count else { return false }
            return (0...(words.count - term.words.count)).contains { start in
                term.words.enumerated().allSatisfy { offset, word in
                    let candidate = words[start + offset]
                    return term.isPrefix && offset == term.words.count - 1
                        ? candidate.hasPrefix(word) : candidate == word
                }
            }
        }
    }

    /// `character` folded: lower case, without a Latin-1 accent (`é` or `e` + U+0301 is `e`).
    static func folded(_ character: Character) -> String {
        let base = character.unicodeScalars.first.map { Character($0) } ?? character
        let lower = base.lowercased()
        return lower.map { latin1Bases[$0] ?? String($0) }.joined()
    }

    /// The Latin-1 letters with accents and their letters without.
    static let latin1Bases: [Character: String] = {
        var bases: [Character: String] = [:]
        for (base, accented) in [
            ("a", "àáâãäå"), ("c", "ç"), ("e", "èéêë"), ("i", "ìíîï"), ("n", "ñ"), ("o", "òóôõö"), ("u", "ùúûü"),
            ("y", "ýÿ"),
        ] {
            for letter in accented { bases[letter] = base }
        }
        return bases
    }()

    /// `word` as a person might type it: in capitals, or with its first `e` accented.
    static func respelled(_ word: String, using random: inout SplitMix64) -> String {
        Bool.random(using: &random) ? word.uppercased() : word.replacing("e", with: "é", maxReplacements: 1)
    }
}
