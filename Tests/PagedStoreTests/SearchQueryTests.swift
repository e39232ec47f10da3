import TestSupport
import Testing

@testable import PagedStore

/// What a person types becomes an FTS5 expression in which every word is a quoted string, never
/// an operator; the word being typed matches as a prefix; a run of Han, kana or Hangul is a phrase
/// of its characters; and text with no word in it is no query at all.
@Suite(.limit(minutes: 1)) struct SearchQueryTests {
    /// The expression for `text`, nil when it is no query.
    func expression(_ text: String, prefix: Bool = true) -> String? {
        SearchQuery(text, prefixLastTerm: prefix)?.expression
    }

    @Test func wordsAreQuotedAndJoinedAndTheWordBeingTypedIsAPrefix() throws {
        #expect(expression("caf") == #""caf" *"#)
        #expect(expression("Café au") == #""Café" "au" *"#)
        #expect(expression("Café au ") == #""Café" "au""#)
        #expect(expression("Café au!") == #""Café" "au""#)
        #expect(expression("Café au", prefix: false) == #""Café" "au""#)
        let query = try #require(SearchQuery("CAFÉ Naïve"))
        #expect(query.terms == [.init(words: ["cafe"], isPrefix: false), .init(words: ["naive"], isPrefix: true)])
    }

    @Test func operatorsTypedArePlainWordsOrSeparators() {
        #expect(expression("cats AND dogs") == #""cats" "AND" "dogs" *"#)
        #expect(expression("NOT cats OR NEAR(a b, 3)") == #""NOT" "cats" "OR" "NEAR" "a" "b" "3""#)
        #expect(expression(#"-cats "dogs* ^birds col:value (x"#) == #""cats" "dogs" "birds" "col" "value" "x" *"#)
        #expect(expression(#"say "hi"#) == #""say" "hi" *"#)
        #expect(expression("a\u{0}b") == #""a" "b" *"#)
    }

    @Test(arguments: [
        "", " ", "   ", "\"", "\"\"", "(", ")", "-", "*", "^", ":", "🙂", "🙂 👍🏽 🇯🇵", "…!?", "\u{0}", "\u{301}",
        "\u{301}\u{332}", "™ © ®", "\t\n",
    ])
    func textWithNoWordIsNoQuery(text: String) {
        #expect(SearchQuery(text) == nil)
    }

    @Test func runsWrittenWithoutSpacesArePhrasesOfTheirCharacters() throws {
        #expect(expression("東京") == #""東 京" *"#)
        #expect(expression("東京 大阪") == #""東 京" "大 阪" *"#)
        #expect(expression("東京タワーへ", prefix: false) == #""東 京 タ ワ ー へ""#)
        #expect(expression("東京abc") == #""東 京 abc" *"#)
        #expect(expression("iPhoneの") == #""iPhone の" *"#)
        #expect(expression("서울에 가요") == #""서 울 에" "가 요" *"#)
        let query = try #require(SearchQuery("東京 ｶﾀ"))
        #expect(query.terms == [.init(words: ["東", "京"], isPrefix: false), .init(words: ["ｶ", "ﾀ"], isPrefix: true)])
    }

    @Test func combiningAccentsStayWithTheirWord() throws {
        let query = try #require(SearchQuery("Cafe\u{301}"))
        #expect(query.expression == "\"Cafe\u{301}\" *")
        #expect(query.terms == [.init(words: ["cafe"], isPrefix: true)])
        // A mark that is not one of unicode61's accents separates, as it does in the index.
        #expect(expression("a\u{332}b") == #""a" "b" *"#)
        #expect(expression("a\u{332}", prefix: true) == #""a""#)
    }

    @Test func aQuoteInsideAWordWouldBeDoubled() {
        #expect(SearchQuery.string(#"a"b""#) == #""a""b""""#)
        #expect(SearchQuery.string("") == #""""#)
    }
}
