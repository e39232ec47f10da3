/// What a person typed into a search field, as an FTS5 `MATCH` expression over text indexed by
/// ``SearchText``, and as the terms ``SearchHighlight`` marks in what it found.
///
/// Any text is safe: every term is written as an FTS5 string, so what a person types (`AND`, `OR`,
/// `NOT`, `NEAR`, `*`, `-`, `^`, `:`, quotes, parentheses) is a word or a separator, never an
/// operator, and the expression can never be an FTS5 syntax error. Its terms are the words
/// ``SearchSegmentation`` reads, each as the tokenizer will fold it, all of which a match must
/// hold (FTS5 joins juxtaposed strings with AND). Pure.
struct SearchQuery: Equatable, Sendable {
    /// One term: a word as typed, or a run of characters written without spaces (with any letters
    /// touching it), which matches where its words stand together.
    struct Term: Equatable, Sendable {
        /// Its words, folded (see ``SearchSegmentation/folded(_:)``): one for a word, one a
        /// character for a run of Han, kana or Hangul.
        let words: [String]
        /// Whether its last word may be the start of a longer one: the word being typed.
        let isPrefix: Bool
    }

    /// The FTS5 expression: each term an FTS5 string of its words (`"東 京"`), the word being typed
    /// followed by `*`.
    let expression: String
    /// The terms, in the order typed, for highlighting.
    let terms: [Term]

    /// The query for `text`, or nil when it holds no word to search for (only spaces, punctuation,
    /// symbols or emoji): the caller shows no results rather than running an empty match.
    ///
    /// - Parameter prefixLastTerm: Whether the last term matches words it starts, as a search that
    ///   runs as the person types wants; not when the text ends with a separator (a space after
    ///   the last word says the word is finished).
    init?(_ text: String, prefixLastTerm: Bool = true) {
        let groups = Self.terms(in: text)
        guard let last = groups.last?.last else { return nil }
        let prefixed = prefixLastTerm && last.range.upperBound == text.endIndex
        var strings: [String] = []
        var terms: [Term] = []
        for (index, group) in groups.enumerated() {
            let isPrefix = prefixed && index == groups.count - 1
            let words = group.map { String(text.unicodeScalars[$0.range]) }
            strings.append(Self.string(words.joined(separator: " ")) + (isPrefix ? " *" : ""))
            terms.append(Term(words: words.map(SearchSegmentation.folded), isPrefix: isPrefix))
        }
        self.expression = strings.joined(separator: " ")
        self.terms = terms
    }

    /// The words of `text` grouped into terms: words that touch (a run written without spaces, and
    /// letters written against it) are one term, so that they must stand together in a match.
    static func terms(in text: String) -> [[SearchWord]] {
        var groups: [[SearchWord]] = []
        for word in SearchSegmentation.words(in: text) {
            if word.joinsPrevious, !groups.isEmpty {
                groups[groups.count - 1].append(word)
            } else {
                groups.append([word])
            }
        }
        return groups
    }

    /// `phrase` as an FTS5 string: in double quotes, each double quote inside doubled. The words
    /// hold letters only, but the quoting must not depend on that.
    static func string(_ phrase: String) -> String {
        "\"" + phrase.replacing("\"", with: "\"\"") + "\""
    }
}
