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

    /// Stores the JSON as it is; reading back keeps the bytes and takes the id from the row (the
    /// app's id key is not known here), so the app's pending edits are not checked against it.
    package static var codec: ItemCodec<JSONItem> {
        var codec = ItemCodec(
            storesText: true, encode: { $0.json },
            decode: { data in JSONItem(FixtureItem(id: "", section: nil, json: data)) })
        codec.decodesIDs = false
        return codec
    }
}
