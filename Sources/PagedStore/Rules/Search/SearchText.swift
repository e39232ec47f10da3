import Foundation

/// The text of one item that search reads: the app's declared searchable fields, found by path in
/// the item's JSON payload, each read as a person reads it (markup removed, see ``SearchMarkup``).
///
/// It has two forms, so that the index and the screen agree: ``display``, what a person reads and
/// what ``SearchHighlight`` marks, and ``indexed``, what the full-text table stores (the same words
/// spaced as ``SearchSegmentation`` reads them). Pure.
struct SearchText: Equatable, Sendable {
    /// Each field's text as a person reads it, one field (or one value of a field) a line.
    let display: String

    /// What the full-text table stores for the item: the words of ``display``, one space apart.
    var indexed: String { SearchSegmentation.indexText(display) }

    /// The searchable text of the item whose JSON payload is `payload`, or nil when the payload is
    /// not JSON or none of `fields` holds text.
    ///
    /// - Parameter fields: Paths of keys separated by dots (`account.display_name`). A path that
    ///   meets an array takes the rest of the path in every element
    ///   (`media_attachments.description`). Only strings are text; numbers, booleans, objects and
    ///   empty or blank strings are not. Fields are read in the order given.
    init?(payload: Data, fields: [String]) {
        // Every write of a searchable row runs this: the fields are read from the bytes where the
        // reader can say, and the whole document is parsed only where it cannot.
        let paths = fields.map { $0.split(separator: ".", omittingEmptySubsequences: false)[...] }
        guard let read = JSONFieldReader.strings(at: paths, in: payload) else {
            self.init(parsing: payload, fields: fields)
            return
        }
        self.init(lines: read)
    }

    /// The same text read by parsing the whole payload with `JSONSerialization` (not a Decodable
    /// value: the decoder's containers cost several times the parse).
    init?(parsing payload: Data, fields: [String]) {
        guard let value = try? JSONSerialization.jsonObject(with: payload, options: [.fragmentsAllowed]) else {
            return nil
        }
        self.init(lines: fields.flatMap { Self.strings(at: $0, in: value) })
    }

    /// The text of the fields' strings, each read as a person reads it; nil when none holds text.
    private init?(lines strings: [String]) {
        let lines = strings.map(Self.plainText).filter { !$0.allSatisfy(\.isWhitespace) }
        guard !lines.isEmpty else { return nil }
        self.display = lines.joined(separator: "\n")
    }

    /// `field` as a person reads it: what ``display`` holds for it, and what a screen showing one
    /// field passes to ``SearchHighlight``.
    static func plainText(_ field: String) -> String {
        SearchMarkup.plainText(field)
    }

    /// The strings at `path` in `value`, in order.
    static func strings(at path: String, in value: Any) -> [String] {
        strings(at: path.split(separator: ".", omittingEmptySubsequences: false)[...], in: value)
    }

    /// The strings at the keys `path` in `value` (as `JSONSerialization` reads JSON): every element
    /// of an array met on the way (or at the end) is followed.
    static func strings(at path: ArraySlice<Substring>, in value: Any) -> [String] {
        if let elements = value as? [Any] {
            return elements.flatMap { strings(at: path, in: $0) }
        }
        if let object = value as? [String: Any] {
            guard let key = path.first, let member = object[String(key)] else { return [] }
            return strings(at: path.dropFirst(), in: member)
        }
        if let string = value as? String, !(value is NSNumber) {
            return path.isEmpty ? [string] : []
        }
        return []
    }
}
