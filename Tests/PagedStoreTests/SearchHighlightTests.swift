import PagedStoreFixtures
import TestSupport
import Testing

@testable import PagedStore

/// A query's terms are marked in the text a person reads where they match whole words (the start
/// of one for the word being typed), case and accents folded, and anywhere inside a run of Han,
/// kana or Hangul; the ranges are sorted, merged and cut no character, whatever the text holds.
@Suite(.limit(minutes: 1)) struct SearchHighlightTests {
    /// The parts of `text` marked for the query `typed`.
    func marked(_ text: String, _ typed: String, prefix: Bool = true) -> [String] {
        guard let query = SearchQuery(typed, prefixLastTerm: prefix) else { return [] }
        return SearchHighlight.ranges(in: text, of: query).map { String(text[$0]) }
    }

    @Test func wholeWordsMatchFoldedAndTheWordBeingTypedMarksOnlyItsStart() {
        #expect(marked("Café au lait, CAFE noir", "cafe ") == ["Café", "CAFE"])
        #expect(marked("Café au lait, CAFE noir", "caf") == ["Caf", "CAF"])
        #expect(marked("cafeteria", "cafe ") == [])
        #expect(marked("cafeteria", "cafe", prefix: false) == [])
        #expect(marked("Hello @bob café & tea", "bob tea") == ["bob", "tea"])
        #expect(marked("Straße", "strasse ") == ["Straße"])
    }

    @Test func aDecomposedAccentIsMarkedWithItsLetter() {
        let text = "E\u{301}cole Cafe\u{301}s"
        #expect(marked(text, "ecole ") == ["E\u{301}cole"])
        #expect(marked(text, "e") == ["E\u{301}"])
        #expect(marked(text, "cafe") == ["Cafe\u{301}"])
    }

    @Test func runsWrittenWithoutSpacesMatchAnywhereInside() {
        let text = "私は東京都に住んでいる"
        #expect(marked(text, "東京") == ["東京"])
        #expect(marked(text, "京都") == ["京都"])
        #expect(marked(text, "都") == ["都"])
        #expect(marked(text, "東京 京都") == ["東京都"])
        #expect(marked(text, "大阪") == [])
        #expect(marked("iPhoneの画面", "iphone の") == ["iPhoneの"])
    }

    @Test func termsThatOverlapOrTouchAreMergedAndSorted() {
        let text = "tea then coffee then tea"
        let query = SearchQuery("then tea coffee ")
        let ranges = query.map { SearchHighlight.ranges(in: text, of: $0) } ?? []
        #expect(ranges.map { String(text[$0]) } == ["tea", "then", "coffee", "then", "tea"])
        #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound < $1.lowerBound })
        #expect(marked("東京", "東 京") == ["東京"])
    }

    @Test(arguments: ["", " ", "🙂", "\u{301}", "👩‍💻🇯🇵", "a\u{332}b\u{20DD}", "e\u{301}\u{301}\u{301}", "\u{0}x\u{0}"])
    func anyTextIsSafe(text: String) {
        for typed in ["a", "x", "e", "b", "東", "🙂"] {
            for range in marked(text, typed) { #expect(!range.isEmpty) }
        }
        #expect(marked("a\u{332}b", "a ") == ["a\u{332}"])
    }

    @Test func randomTextAndTermsGiveSortedDisjointRangesOfWholeCharacters() {
        let alphabet: [String] = [
            "a", "A", "é", "e\u{301}", "\u{301}", "\u{332}", "ß", " ", ".", "東", "京", "ｶ", "🙂", "👍🏽", "\u{200D}",
            "🇯", "🇵", "\u{0}", "\"", "\u{FE0F}", "ǅ", "ﬁ", "İ",
        ]
        var random = SplitMix64(seed: 0x5EA2_C401)
        for _ in 0..<2_000 {
            let text = (0..<Int.random(in: 0...12, using: &random)).map { _ in
                alphabet.randomElement(using: &random) ?? ""
            }
            .joined()
            let typed = (0..<Int.random(in: 0...4, using: &random)).map { _ in
                alphabet.randomElement(using: &random) ?? ""
            }
            .joined()
            guard let query = SearchQuery(typed, prefixLastTerm: Bool.random(using: &random)) else { continue }
            let ranges = SearchHighlight.ranges(in: text, of: query)
            for range in ranges {
                #expect(
                    range.lowerBound.samePosition(in: text) != nil && range.upperBound.samePosition(in: text) != nil)
                #expect(!range.isEmpty && range.upperBound <= text.endIndex)
            }
            #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound < $1.lowerBound }, "\(text) / \(typed)")
        }
    }
}
