import PagedStoreFixtures
import TestSupport
import Testing

@testable import PagedStore

/// The text the full-text table stores holds the words search reads, one space apart: a run of
/// Han, kana or Hangul one character a word, so that it is found from any character, and no emoji
/// or symbol glued to a word, which SQLite's tokenizer would take into the word.
@Suite(.limit(minutes: 1)) struct SearchSegmentationTests {
    @Test func runsWrittenWithoutSpacesAreIndexedOneCharacterAWord() {
        #expect(SearchSegmentation.indexText("東京都に住んでいる") == "東 京 都 に 住 ん で い る")
        #expect(SearchSegmentation.indexText("iPhoneの東京abc") == "iPhone の 東 京 abc")
        #expect(SearchSegmentation.indexText("서울에 갑니다") == "서 울 에 갑 니 다")
        #expect(SearchSegmentation.indexText("ｉＰｈｏｎｅ ｶﾀｶﾅ") == "ｉ Ｐ ｈ ｏ ｎ ｅ ｶ ﾀ ｶ ﾅ")
        #expect(SearchSegmentation.indexText("東\u{301}京、「大阪」") == "東\u{301} 京 大 阪")
    }

    @Test func asciiTextIsIndexedByteByByteAsScalarByScalar() {
        var random = SplitMix64(seed: 0xA5C11)
        let alphabet = Array("ab Z9\n\t.-_'\"<>&*()")
        for _ in 0..<2_000 {
            let text = String(
                (0..<Int.random(in: 0...24, using: &random)).map { _ in alphabet.randomElement(using: &random) ?? " " })
            #expect(
                SearchSegmentation.asciiIndexText(text) == SearchSegmentation.scalarIndexText(text),
                "\(text.debugDescription)")
        }
        #expect(SearchSegmentation.asciiIndexText("Café") == nil)
        #expect(SearchSegmentation.indexText("  Post #12\n\n lorem,ipsum  ") == "Post 12\nlorem ipsum")
    }

    @Test func symbolsAndEmojiSeparateWordsInTheIndexedText() {
        // SQLite 3.40's unicode61 reads 🤣 (U+1F923) as a letter: given as written, `lol🤣` is one
        // word that `lol` does not find.
        #expect(SearchSegmentation.indexText("lol🤣 ok🙂👍 a—b ‘q’ x™ 1½") == "lol ok a b q x 1½")
        #expect(SearchSegmentation.indexText("🙂 … \u{0} \u{301}") == "")
        #expect(SearchSegmentation.indexText("Cafe\u{301}s a\u{332}b") == "Cafe\u{301}s a b")
        #expect(SearchSegmentation.indexText("one 🙂\n🙂 two, three\n\nfour") == "one\ntwo three\nfour")
    }
}
