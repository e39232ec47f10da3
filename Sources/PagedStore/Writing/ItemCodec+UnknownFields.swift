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
    /// the model never saw stays. A model that knows every field encodes `original` back to `stored`
    /// itself, and the payload stays `payload`, byte for byte.
    /// - Parameters:
    ///   - stored: The payload the edit replaces.
    ///   - original: `stored` as this codec decoded it, before the edit.
    ///   - payload: The edited item, encoded.
    func keepingUnknownFields(of stored: Data, readAs original: Item, in payload: Data) -> Data {
        guard let seen = try? encode(original), seen != stored else { return payload }
        return PayloadRebase.rebase(payload, from: seen, onto: stored)
    }
}
