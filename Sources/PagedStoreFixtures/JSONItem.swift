package import Foundation
package import PagedStore

/// An item that is its JSON object: what `pagedb` feeds through the engine when it replays a captured
/// response, so that the engine runs on exactly the bytes the server sent (canonicalized).
package struct JSONItem: FeedItem, Equatable {
    /// The item's id.
    package var id: String
    /// Its section key, if any.
    package var section: String?
    /// Its canonical JSON object.
    package var json: Data

    /// The section key.
    package var sectionKey: String? { section }

    /// An item from a fixture.
    package init(_ item: FixtureItem) {
        id = item.id
        section = item.section
        json = item.json
    }

    /// Stores the JSON as it is; reading back keeps the bytes and takes the id from the row. A
    /// payload's own id, which the app's pending edits are checked against, is read under `idKey`
    /// when the object has it (the app's id key may be another: then it is not checked).
    package static func codec(idKey: String) -> ItemCodec<JSONItem> {
        var codec = ItemCodec(
            storesText: true, encode: { $0.json },
            decode: { data in JSONItem(FixtureItem(id: "", section: nil, json: data)) })
        let reader = FixtureReader(idKey: idKey)
        codec.payloadID = { data in try? reader.read(data, file: "payload").pages.first?.items.first?.id }
        return codec
    }

    /// ``codec(idKey:)`` for ids under `id`.
    package static var codec: ItemCodec<JSONItem> { codec(idKey: "id") }
}
