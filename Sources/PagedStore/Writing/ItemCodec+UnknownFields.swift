import Foundation

extension ItemCodec {
    /// `payload` (an edited item's encoding) as it replaces `stored`, with the fields of `stored` that
    /// this codec's model does not know.
    ///
    /// A model encodes only the fields it declares: a target whose model is smaller than the one that
    /// wrote the row (a widget's, an older version of the app's) would otherwise write an edited row
    /// without them, and every other reader of the file would lose them. What the model saw of
    /// `stored` is `original` encoded again; the edit's change from that to `payload` is carried onto
    /// `stored` (``PayloadRebase``), so a field the edit set or removed is set or removed, and a field
    /// the model never saw stays. When `stored` holds no field that `original` encoded again lacks
    /// (the model knows every field, whatever the bytes' spacing or order), the payload stays
    /// `payload`, byte for byte. The fields kept go through ``JSONValue``: a number with a fraction
    /// keeps a `Double`'s 17 significant digits.
    /// - Parameters:
    ///   - stored: The payload the edit replaces.
    ///   - original: `stored` as this codec decoded it, before the edit.
    ///   - payload: The edited item, encoded.
    func keepingUnknownFields(of stored: Data, readAs original: Item, in payload: Data) -> Data {
        guard let seen = try? encode(original), seen != stored, let storedValue = JSONValue.decode(stored),
            let seenValue = JSONValue.decode(seen), Self.holds(storedValue, beyond: seenValue)
        else { return payload }
        return PayloadRebase.rebase(payload, from: seen, onto: stored)
    }

    /// Whether `value` has a field `seen` lacks, in an object at any depth (arrays element by
    /// element, when both have as many).
    private static func holds(_ value: JSONValue, beyond seen: JSONValue) -> Bool {
        switch (value, seen) {
        case (.object(let fields), .object(let seenFields)):
            return fields.contains { key, field in seenFields[key].map { holds(field, beyond: $0) } ?? true }
        case (.array(let elements), .array(let seenElements)) where elements.count == seenElements.count:
            return zip(elements, seenElements).contains { holds($0, beyond: $1) }
        default:
            return false
        }
    }
}
