import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// The text search reads from an item: the declared fields found by path in its JSON, each read as
/// a person reads it (a post's HTML without its tags, its references decoded), whatever the markup.
@Suite(.limit(minutes: 1)) struct SearchTextTests {
    /// A Mastodon status's searchable fields.
    static let fields = ["content", "account.display_name", "media_attachments.description"]

    /// The search text of the item `json`.
    func text(_ json: String, fields: [String] = Self.fields) -> SearchText? {
        SearchText(payload: Data(json.utf8), fields: fields)
    }

    @Test func aMastodonPostIsReadAsItsWordsOneFieldALine() throws {
        let post = #"""
            {"id": "1", "content": "<p>Hello <a href=\"https://social.example/@bob\" class=\"u-url mention\"><span class=\"h-card\">@bob</span></a> caf&eacute; &amp; tea<br>next</p><p>It&#39;s &quot;fine&quot; &#x1F600;</p>",
             "account": {"display_name": "Zoë :blobcat:", "followers_count": 12, "bot": false},
             "media_attachments": [{"description": "A cat &lt;3"}, {"description": null}, {"id": 7}, {"description": "A dog"}]}
            """#
        let found = try #require(text(post))
        #expect(
            found.display == "Hello @bob café & tea next It's \"fine\" 😀\nZoë :blobcat:\nA cat <3\nA dog")
        #expect(found.indexed == "Hello bob café tea next It s fine\nZoë blobcat\nA cat 3\nA dog")
    }

    @Test func aLinkSplitIntoSpansStaysOneWordAndParagraphsDoNotRunTogether() {
        let content = #"""
            <p>Read <a href="https://example.com/a/b" rel="nofollow noopener" target="_blank"><span class="invisible">https://</span><span class="ellipsis">example.com/a</span><span class="invisible">/b</span></a></p><p>second<br/>third</p><ul><li>one</li><li>two</li></ul>
            """#
        #expect(SearchText.plainText(content) == "Read https://example.com/a/b second third one two")
    }

    @Test func scriptsStylesAndCommentsGoWithTheirContent() {
        #expect(
            SearchText.plainText("<p>a</p><script>alert('<p>x</p>')</script ><STYLE>p { color: red }</STYLE>b")
                == "a b")
        #expect(SearchText.plainText("<b>x</b><!-- hidden <p>y</p> -->z<!DOCTYPE html><?xml version?>") == "xz")
        #expect(SearchText.plainText("<i>kept</i><script>never closed") == "kept")
    }

    @Test func referencesAreDecodedAndThoseThatAreNotCompleteStayAsWritten() {
        #expect(
            SearchText.plainText("<p>&eacute;&Eacute;&nbsp;&#233;&#xE9;&#XE9;&#146;&hellip;&apos;</p>")
                == "éÉ\u{A0}ééé’…'")
        let kept = "<p>&bogus; &amp &#; &#x; &#0; &#xD800; &#x110000; &#99999999999999999999999; &#12a; &eacute</p>"
        #expect(
            SearchText.plainText(kept)
                == "&bogus; &amp &#; &#x; &#0; &#xD800; &#x110000; &#99999999999999999999999; &#12a; &eacute")
    }

    @Test(arguments: ["2 < 3 && 4 > 1", "AT&T", "R&D; team", "I <3 you", "a<", "&", "<", "", "Tom & Jerry &c"])
    func textThatDoesNotLookLikeMarkupIsKeptExactly(plain: String) {
        #expect(SearchText.plainText(plain) == plain)
    }

    @Test func anIncompleteTagInMarkupStaysAsWritten() {
        #expect(SearchText.plainText("<p>x</p> then a <b") == "x then a <b")
        #expect(SearchText.plainText("<p>if a <b then</p> c <d") == "if a  c <d")  // as a browser reads it
        #expect(SearchText.plainText("<p>x</p>< p>y") == "x < p>y")
        #expect(SearchText.plainText(#"<a title="1 > 0" href='x>y'>link</a>"#) == "link")
        #expect(
            SearchText.plainText(#"<a title="never closed>text</a> and <b>bold</b>"#)
                == #"<a title="never closed>text and bold"#)
    }

    @Test func pathsFollowArraysAndTakeStringsOnly() throws {
        let item = #"""
            {"tags": ["swift", 3, {"name": "sqlite"}, ["nested", ["deeper"]]],
             "poll": {"options": [{"title": "Yes"}, {"title": "No", "votes": 3}]},
             "count": 4, "flag": true, "empty": "", "blank": "  \n", "object": {"a": "b"}}
            """#
        #expect(try #require(text(item, fields: ["tags"])).display == "swift\nnested\ndeeper")
        #expect(try #require(text(item, fields: ["poll.options.title", "tags.name"])).display == "Yes\nNo\nsqlite")
        #expect(
            text(item, fields: ["count", "flag", "object", "empty", "blank", "missing", "poll.options.votes"]) == nil)
        #expect(text(item, fields: ["", ".", "tags.", "poll..title"]) == nil)
        #expect(text(item, fields: []) == nil)
        #expect(try #require(text(#"[{"content": "a"}, {"content": "b"}]"#, fields: ["content"])).display == "a\nb")
    }

    @Test func aPayloadThatIsNotJSONHasNoText() {
        #expect(text("not json") == nil)
        #expect(SearchText(payload: Data([0xFF, 0xFE, 0x00]), fields: Self.fields) == nil)
        #expect(SearchText(payload: Data(), fields: Self.fields) == nil)
        #expect(text(#""just a string""#, fields: [""]) == nil)
    }

    @Test func hostileMarkupIsReadInLinearTime() {
        let clock = ContinuousClock()
        let started = clock.now
        let unclosedQuotes = String(repeating: #"<a b="x "#, count: 20_000)
        #expect(SearchText.plainText(unclosedQuotes + "<p>end</p>").hasSuffix("end"))
        #expect(SearchText.plainText(#"<a b="x "# + unclosedQuotes + "<p>end</p>").hasSuffix("end"))
        let unendedComments = String(repeating: "<!--", count: 20_000) + " >"
        #expect(SearchText.plainText("<p>" + unendedComments) == unendedComments)
        let unclosedTags = "<p>" + String(repeating: "<a", count: 40_000)
        #expect(SearchText.plainText(unclosedTags) == String(repeating: "<a", count: 40_000))
        let scripts = String(repeating: "<script>", count: 20_000)
        #expect(SearchText.plainText(scripts).isEmpty)
        #expect(clock.now - started < .seconds(20))
    }
}
