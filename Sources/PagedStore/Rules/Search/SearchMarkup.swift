/// The text a person reads in a field written as HTML (a Mastodon post's `content`), so that search
/// finds its words and not its tags, and shows it as the person read it. Pure.
///
/// Tags go; a block tag or `<br>` leaves one space, so the words of two paragraphs do not run
/// together, while an inline tag (`<a>`, `<span>`) leaves nothing, so a link split into spans
/// stays one word. What `<script>` and `<style>` hold goes with them, and comments go. Character
/// references are decoded (see ``SearchEntities``). Anything that is not a complete tag (`a <b`
/// with no `>`) stays as written, and text that does not look like markup at all is kept exactly.
enum SearchMarkup {
    /// `text` as a person reads it: itself unless it looks like markup (see ``looksLikeMarkup(_:)``).
    static func plainText(_ text: String) -> String {
        // Most fields hold neither a tag nor a reference: no copy of their scalars.
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: "&") }) else { return text }
        let scalars = Array(text.unicodeScalars)
        guard looksLikeMarkup(scalars) else { return text }
        var reader = MarkupReader(scalars: scalars)
        return reader.plainText()
    }

    /// Whether `scalars` hold a tag's start (`<` before an ASCII letter or `/`) or a known
    /// character reference: "2 < 3" or "AT&T" is plain text, kept as it is.
    static func looksLikeMarkup(_ scalars: [Unicode.Scalar]) -> Bool {
        for index in scalars.indices {
            switch scalars[index] {
            case "<":
                if index + 1 < scalars.count, scalars[index + 1] == "/" || isASCIILetter(scalars[index + 1]) {
                    return true
                }
            case "&":
                if SearchEntities.decode(scalars, at: index) != nil { return true }
            default:
                break
            }
        }
        return false
    }

    /// The tags after which the text goes on as a new block or line: each leaves a space.
    static let breaking: Set<String> = [
        "address", "article", "aside", "blockquote", "br", "caption", "dd", "details", "dialog", "div", "dl", "dt",
        "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr",
        "li", "main", "nav", "ol", "option", "p", "pre", "section", "summary", "table", "tbody", "td", "tfoot", "th",
        "thead", "tr", "ul",
    ]

    /// The tags whose content is code, not text: it goes with them.
    static let hidingContent: Set<String> = ["script", "style"]

    /// `scalar` in lower case when it is an ASCII capital: tag names are read in any case.
    static func asciiLowercased(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        (0x41...0x5A).contains(scalar.value) ? Unicode.Scalar(UInt8(truncatingIfNeeded: scalar.value + 0x20)) : scalar
    }

    /// Whether `scalar` is an ASCII letter, which a tag's name starts with.
    static func isASCIILetter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x41...0x5A, 0x61...0x7A: true
        default: false
        }
    }
}

/// One pass over markup's scalars, taking out tags and decoding references. Every scan for a tag's
/// end is bounded so that hostile markup (`<a b="<a b="…`, `<!--<!--…`) is read in linear time:
/// a tag is looked for only where a `>` still follows, an unclosed quote is trusted once, and a
/// comment's end is looked for until it is known to be missing.
struct MarkupReader {
    /// A tag read: its name (lowercased, `!` for a comment or declaration) and where it ends.
    struct Tag {
        /// The name, lowercased: what decides whether it breaks the text or hides its content.
        let name: String
        /// Whether it closes an element (`</p>`): a closing tag hides nothing after it.
        let isClosing: Bool
        /// Whether it closes itself (`<script/>`): then it has no content to hide.
        let isSelfClosing: Bool
        /// The index after its `>`.
        let end: Int
    }

    /// The markup.
    let scalars: [Unicode.Scalar]
    /// The index of the last `>`: a tag starting after it cannot end.
    let lastClose: Int
    /// Whether a quoted attribute value was found never to close: later tags end at their first
    /// `>`, so that each unclosed quote is not read to the end again.
    var quotesUntrusted = false
    /// Whether a comment was found never to end: there is no `-->` after it, so none is looked for.
    var commentsUnended = false

    /// A reader of `scalars`.
    init(scalars: [Unicode.Scalar]) {
        self.scalars = scalars
        self.lastClose = scalars.lastIndex(of: ">") ?? -1
    }

    /// The text without its tags, references decoded, one space where blocks meet.
    mutating func plainText() -> String {
        var plain = String.UnicodeScalarView()
        var breakPending = false
        var index = 0
        while index < scalars.count {
            if scalars[index] == "<", let tag = tag(at: index) {
                breakPending = breakPending || SearchMarkup.breaking.contains(tag.name)
                index = tag.end
                if SearchMarkup.hidingContent.contains(tag.name), !tag.isClosing, !tag.isSelfClosing {
                    index = endOfContent(of: tag.name, from: index)
                }
                continue
            }
            var scalar = scalars[index]
            var next = index + 1
            if scalar == "&", let reference = SearchEntities.decode(scalars, at: index) {
                scalar = reference.scalar
                next = reference.end
            }
            if breakPending, let last = plain.last, !last.properties.isWhitespace, !scalar.properties.isWhitespace {
                plain.append(" ")
            }
            breakPending = false
            plain.append(scalar)
            index = next
        }
        return String(plain)
    }

    /// The tag starting at `start` (a `<`), or nil when none does: `<` before anything but a
    /// letter, `/`, `!` or `?`, or a tag that never ends, stays as text.
    mutating func tag(at start: Int) -> Tag? {
        guard start + 1 < scalars.count, start < lastClose else { return nil }
        let first = scalars[start + 1]
        if first == "!", matches("<!--", at: start) { return comment(at: start) }
        if first == "!" || first == "?" {
            guard let close = scalars[(start + 1)...].firstIndex(of: ">") else { return nil }
            return Tag(name: "!", isClosing: false, isSelfClosing: true, end: close + 1)
        }
        let isClosing = first == "/"
        guard isClosing || SearchMarkup.isASCIILetter(first) else { return nil }
        var index = isClosing ? start + 2 : start + 1
        var name = String.UnicodeScalarView()
        while index < scalars.count, SearchEntities.isASCIIAlphanumeric(scalars[index]) {
            name.append(SearchMarkup.asciiLowercased(scalars[index]))
            index += 1
        }
        guard let close = closingBracket(from: index) else { return nil }
        return Tag(
            name: String(name), isClosing: isClosing, isSelfClosing: close > start && scalars[close - 1] == "/",
            end: close + 1)
    }

    /// The index of the `>` that ends a tag whose attributes start at `start`: the first outside a
    /// quoted value (a quote opens a value only right after `=`), or the first at all once a quote
    /// was found unclosed; nil when there is none.
    mutating func closingBracket(from start: Int) -> Int? {
        if quotesUntrusted { return scalars[start...].firstIndex(of: ">") }
        var quote: Unicode.Scalar?
        var afterEquals = false
        var index = start
        while index < scalars.count {
            let scalar = scalars[index]
            if let open = quote {
                if scalar == open { quote = nil }
            } else if scalar == ">" {
                return index
            } else if afterEquals, scalar == "\"" || scalar == "'" {
                quote = scalar
            }
            if scalar == "=" {
                afterEquals = quote == nil
            } else if !scalar.properties.isWhitespace {
                afterEquals = false
            }
            index += 1
        }
        quotesUntrusted = true
        return nil
    }

    /// The comment starting at `start` (`<!--`), ending after its `-->`; nil when it never ends,
    /// and then no later comment is looked for either.
    mutating func comment(at start: Int) -> Tag? {
        guard !commentsUnended else { return nil }
        var index = start + 4
        while index + 2 < scalars.count {
            if matches("-->", at: index) {
                return Tag(name: "!", isClosing: false, isSelfClosing: true, end: index + 3)
            }
            index += 1
        }
        commentsUnended = true
        return nil
    }

    /// The index after the tag that closes a `name` element whose content starts at `start`
    /// (`</script>`, in any case); the end of the text when it is not closed, as a browser reads it.
    func endOfContent(of name: String, from start: Int) -> Int {
        let closing = Array("</\(name)".unicodeScalars)
        var index = start
        while index + closing.count <= scalars.count {
            let after = index + closing.count
            if zip(scalars[index..<after], closing).allSatisfy({ SearchMarkup.asciiLowercased($0) == $1 }),
                after == scalars.count || scalars[after] == ">" || scalars[after] == "/"
                    || scalars[after].properties.isWhitespace
            {
                return scalars[after...].firstIndex(of: ">").map { $0 + 1 } ?? scalars.count
            }
            index += 1
        }
        return scalars.count
    }

    /// Whether `literal` is written at `index`.
    func matches(_ literal: String, at index: Int) -> Bool {
        let wanted = Array(literal.unicodeScalars)
        return index + wanted.count <= scalars.count && Array(scalars[index..<(index + wanted.count)]) == wanted
    }
}
