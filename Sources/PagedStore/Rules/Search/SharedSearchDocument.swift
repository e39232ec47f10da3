/// What a shared item's one search document holds, and which of its rows a match shows. Pure.
///
/// The rows of a shared item show one copy (``SharedCopyRule``), except where a feed's pending
/// insert keeps its draft while another feed holds the server's copy. The one document then holds
/// the text of each distinct copy, so that the item is found by what any row shows, and found once;
/// a match shows a row whose own text the query matches.
enum SharedSearchDocument {
    /// The document's text: each distinct text of `rows` (the rows' index text, nil for a row with
    /// none), in the order given, one space apart; nil when no row has text (the document goes).
    static func text(of rows: [String?]) -> String? {
        var seen = Set<String>()
        var texts: [String] = []
        for case let text? in rows where seen.insert(text).inserted {
            texts.append(text)
        }
        return texts.isEmpty ? nil : texts.joined(separator: " ")
    }

    /// The index, among `count` rows showing a match, of the row the match shows: the first, when
    /// they all show one copy (`sameCopy`), else the first whose own text the query matches
    /// (`holdsTheQuery`, asked in order); nil when none does (the match is a copy only rows
    /// outside the search show).
    static func rowShowing(
        count: Int, sameCopy: Bool, holdsTheQuery: (Int) -> Bool
    ) -> Int? {
        guard count > 0 else { return nil }
        if sameCopy { return 0 }
        return (0..<count).first(where: holdsTheQuery)
    }
}
