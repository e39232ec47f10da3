/// Where a query's terms stand in a text a person reads, so that the match can be shown: the
/// display text of ``SearchText`` (markup removed, no spaces added), read into words as the index
/// read it. Pure.
enum SearchHighlight {
    /// The ranges of `text` that `query`'s terms match, sorted, each a run of whole characters,
    /// none overlapping or touching another (they are merged).
    static func ranges(in text: String, of query: SearchQuery) -> [Range<String.Index>] {
        ranges(in: text, of: query.terms)
    }

    /// The ranges of `text` that `terms` match: a term matches where its words are words of the
    /// text one after another, case and accents folded; the last word of a prefix term matches the
    /// start of a word, and only that start is marked. A run of Han, kana or Hangul is one word a
    /// character, so it matches anywhere inside a longer run.
    static func ranges(in text: String, of terms: [SearchQuery.Term]) -> [Range<String.Index>] {
        let words = SearchSegmentation.words(in: text)
        guard !words.isEmpty else { return [] }
        let folded = words.map { SearchSegmentation.folded(String(text.unicodeScalars[$0.range])) }
        var found: [Range<String.Index>] = []
        for term in terms {
            guard let lastWord = term.words.last, !lastWord.isEmpty, term.words.count <= words.count else { continue }
            let leading = term.words.dropLast()
            for start in 0...(words.count - term.words.count) {
                let end = start + term.words.count - 1
                guard zip(leading, folded[start..<end]).allSatisfy({ $0 == $1 }) else { continue }
                if folded[end] == lastWord {
                    found.append(words[start].range.lowerBound..<words[end].range.upperBound)
                } else if term.isPrefix, folded[end].hasPrefix(lastWord) {
                    found.append(
                        words[start].range.lowerBound..<prefixEnd(of: lastWord, in: text, word: words[end].range))
                }
            }
        }
        return merged(found.map { characterRange($0, in: text) })
    }

    /// Where, in the word at `range` of `text`, the characters whose folding begins with `prefix`
    /// end (a letter is folded with the accents that follow it, as a decomposed `é` is written);
    /// the whole word when folding piece by piece does not give the start the whole word's folding
    /// matched.
    static func prefixEnd(of prefix: String, in text: String, word range: Range<String.Index>) -> String.Index {
        let scalars = text.unicodeScalars
        var folded = ""
        var index = range.lowerBound
        while index < range.upperBound {
            var next = scalars.index(after: index)
            while next < range.upperBound, SearchSegmentation.kind(of: scalars[next]) == .accent {
                next = scalars.index(after: next)
            }
            folded += SearchSegmentation.folded(String(scalars[index..<next]))
            index = next
            if folded.unicodeScalars.count >= prefix.unicodeScalars.count {
                return folded.hasPrefix(prefix) ? index : range.upperBound
            }
        }
        return range.upperBound
    }

    /// `range` widened to whole characters: a word's scalars can end inside a character (a letter
    /// with a combining mark that is not an accent), and a highlight cuts no character in two.
    static func characterRange(_ range: Range<String.Index>, in text: String) -> Range<String.Index> {
        let scalars = text.unicodeScalars
        var lower = range.lowerBound
        while lower > text.startIndex, lower.samePosition(in: text) == nil {
            lower = scalars.index(before: lower)
        }
        var upper = range.upperBound
        while upper < text.endIndex, upper.samePosition(in: text) == nil {
            upper = scalars.index(after: upper)
        }
        return lower..<upper
    }

    /// `ranges` sorted, with any that overlap or touch made one.
    static func merged(_ ranges: [Range<String.Index>]) -> [Range<String.Index>] {
        var merged: [Range<String.Index>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        return merged
    }
}
