import Foundation

/// Where search's words are in a text: the one reading of text that the indexed text, the query
/// and the highlight all share, so that what a query asks for is what the index holds and what the
/// highlight shows.
///
/// It reads text as SQLite's `unicode61` tokenizer does (letters and digits make words, a few
/// combining accents continue one, everything else separates), with two differences the indexed
/// text carries to the tokenizer (see ``indexText(_:)``):
/// - a character of a script written without spaces (Han, kana, Hangul, fullwidth letters) is a
///   word of its own, so that any run of them can be found inside a longer run; `unicode61` would
///   read `東京都に住んでいる` as one word, found only by its start;
/// - symbols, emoji and private-use characters separate words. SQLite 3.40's tables date from an
///   old Unicode and take every character assigned since (🙂 U+1F642, 🤣 U+1F923) for a letter,
///   which glues `lol🤣` into one word that `lol` would not find.
///
/// Pure.
enum SearchSegmentation {
    /// What one Unicode scalar is to a word.
    enum Kind: Equatable {
        /// Ends a word, and is not in any.
        case separator
        /// A letter or digit that joins its neighbours into a word.
        case letter
        /// A letter of a script written without spaces: a word by itself.
        case segmented
        /// A combining accent that continues a word already begun (dropped by the tokenizer's
        /// `remove_diacritics`), and separates anywhere else.
        case accent
    }

    /// How `scalar` takes part in words.
    static func kind(of scalar: Unicode.Scalar) -> Kind {
        let value = scalar.value
        // ASCII first, without a table look-up: most of the text of most items.
        if value < 0x80 {
            let letter = (value | 0x20) &- 0x61 < 26 || value &- 0x30 < 10
            return letter ? .letter : .separator
        }
        if (0x300...0x331).contains(value), continuingAccents.contains(value) { return .accent }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .decimalNumber, .letterNumber, .otherNumber:
            return isWrittenWithoutSpaces(scalar.value) ? .segmented : .letter
        default:
            return .separator
        }
    }

    /// The combining accents `unicode61` reads as part of the word they follow: found by inserting
    /// `a` + each scalar + `b` into an FTS5 table of SQLite 3.40.1 and reading back one word `ab`.
    static let continuingAccents: Set<UInt32> = [
        0x300, 0x301, 0x302, 0x303, 0x304, 0x306, 0x307, 0x308, 0x309, 0x30A, 0x30B, 0x30C, 0x30F, 0x311, 0x31B,
        0x323, 0x324, 0x325, 0x326, 0x327, 0x328, 0x32D, 0x32E, 0x330, 0x331,
    ]

    /// The blocks of scripts written without spaces between words: Han (with its numerals and
    /// iteration marks), Hiragana, Katakana, Bopomofo, Hangul syllables and letters, and the
    /// fullwidth and halfwidth forms written among them. Only their letters and digits count.
    static let withoutSpaces: [ClosedRange<UInt32>] = [
        0x3005...0x3007, 0x3021...0x3029, 0x3031...0x3035, 0x3038...0x303C,  // 々〆〇, numerals, marks
        0x3040...0x30FF,  // Hiragana, Katakana
        0x3100...0x312F, 0x3130...0x318F, 0x31A0...0x31BF, 0x31F0...0x31FF,  // Bopomofo, Hangul letters
        0x3400...0x4DBF, 0x4E00...0x9FFF,  // Han
        0xAC00...0xD7AF,  // Hangul syllables
        0xF900...0xFAFF,  // Han compatibility
        0xFF10...0xFF19, 0xFF21...0xFF3A, 0xFF41...0xFF5A,  // fullwidth digits and Latin letters
        0xFF66...0xFFDC,  // halfwidth Katakana and Hangul
        0x1B000...0x1B16F,  // Kana supplement and extensions
        0x20000...0x3FFFF,  // Han supplementary planes
    ]

    /// Whether `value` is in a block of ``withoutSpaces``.
    static func isWrittenWithoutSpaces(_ value: UInt32) -> Bool {
        value >= 0x3005 && withoutSpaces.contains { $0.contains(value) }
    }

    /// The words of `text`, in order: each a range of its scalars (its accents included) and
    /// whether it joins the word before it with no separator between (two segmented characters,
    /// or one and a letter: what `unicode61` alone would have read as one word).
    static func words(in text: String) -> [SearchWord] {
        var words: [SearchWord] = []
        let scalars = text.unicodeScalars
        var start: String.Index?
        var startSegmented = false
        var joinsPrevious = false
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let kind = kind(of: scalars[index])
            switch kind {
            case .separator:
                if let begun = start {
                    words.append(SearchWord(range: begun..<index, joinsPrevious: joinsPrevious))
                }
                start = nil
            case .accent:
                break  // continues the word begun, or is a separator like any other
            case .letter, .segmented:
                let segmented = kind == .segmented
                if let begun = start, segmented || startSegmented {
                    words.append(SearchWord(range: begun..<index, joinsPrevious: joinsPrevious))
                    start = index
                    startSegmented = segmented
                    joinsPrevious = true
                } else if start == nil {
                    start = index
                    startSegmented = segmented
                    joinsPrevious = false
                }
            }
            index = scalars.index(after: index)
        }
        if let begun = start {
            words.append(SearchWord(range: begun..<index, joinsPrevious: joinsPrevious))
        }
        return words
    }

    /// The text the full-text table stores for `text`: its words, one space between any two (a line
    /// break where `text` breaks the line, so that each field stays on its line), so that the
    /// tokenizer reads exactly ``words(in:)`` (see the type's notes for why it cannot be given
    /// `text` itself).
    static func indexText(_ text: String) -> String {
        asciiIndexText(text) ?? scalarIndexText(text)
    }

    /// ``indexText(_:)`` of any text, scalar by scalar.
    static func scalarIndexText(_ text: String) -> String {
        let scalars = text.unicodeScalars
        var indexed = String.UnicodeScalarView()
        var previousEnd: String.Index?
        for word in words(in: text) {
            if let previousEnd {
                indexed.append(scalars[previousEnd..<word.range.lowerBound].contains("\n") ? "\n" : " ")
            }
            indexed.append(contentsOf: scalars[word.range])
            previousEnd = word.range.upperBound
        }
        return String(indexed)
    }

    /// ``indexText(_:)`` of an ASCII text, read byte by byte as ``kind(of:)`` reads ASCII (letters
    /// and digits make words, every other byte separates): the index text of most items, which
    /// every write of a searchable row computes. Nil when `text` is not ASCII.
    static func asciiIndexText(_ text: String) -> String? {
        var text = text
        text.makeContiguousUTF8()  // a native string already is: nothing copied
        let (space, lineBreak) = (UInt8(ascii: " "), UInt8(ascii: "\n"))
        let indexed = text.utf8.withContiguousStorageIfAvailable { bytes -> String? in
            var indexed: [UInt8] = []
            indexed.reserveCapacity(bytes.count)
            var inWord = false
            // What separates the next word from the last one: nil before the first word.
            var gap: UInt8?
            for byte in bytes {
                guard byte < 0x80 else { return nil }
                if (byte | 0x20) &- 0x61 < 26 || byte &- 0x30 < 10 {
                    if !inWord, let gap { indexed.append(gap) }
                    indexed.append(byte)
                    (inWord, gap) = (true, nil)
                } else {
                    if inWord || gap != nil { gap = byte == lineBreak || gap == lineBreak ? lineBreak : space }
                    inWord = false
                }
            }
            return String(decoding: indexed, as: UTF8.self)
        }
        return indexed ?? nil
    }

    /// `word` as searching compares it: case and accents folded. Close to what the tokenizer's
    /// `remove_diacritics 2` does, which is enough for highlighting what it found.
    static func folded(_ word: some StringProtocol) -> String {
        word.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }
}

/// One word of a text as ``SearchSegmentation`` reads it.
struct SearchWord: Equatable {
    /// Its scalars in the text it was read from (not always on character boundaries: a combining
    /// mark that is not an accent ends a word in the middle of a character).
    let range: Range<String.Index>
    /// Whether it follows the word before with no separator between: the two are one word to the
    /// tokenizer unless the indexed text puts a space there.
    let joinsPrevious: Bool
}
