public import Foundation

/// An item of a feed: the app's own model, with a stable id.
///
/// ```swift
/// struct Post: FeedItem, Codable {
///     let id: Int
///     let title: String
/// }
/// ```
///
/// The id is stored as text (`String(describing: id)`), so `Int`, `String` and `UUID` ids all work.
public protocol FeedItem: Sendable, Identifiable {
    /// The section this item is grouped under, or nil (the default) for a feed without sections.
    /// Consecutive rows with the same key form one section.
    var sectionKey: String? { get }

    /// The text the cache stores for an id of this type. The defaults are the id itself for `String`
    /// ids, its decimal digits for integer ids, and `String(describing:)` otherwise; they are chosen
    /// when the type conforms, so no per-item dynamic cast runs on the hot path.
    static func storedID(for id: ID) -> String

    /// The name under which the items of this type are one item across the feeds of a store, or nil
    /// (the default): each feed keeps its own copy.
    ///
    /// With a name, a copy of an item that any feed writes (a server page, ``Feed/update(_:)``)
    /// replaces the copy in every other feed of the store holding the same id under the same name,
    /// in the same transaction, and each of their open lists shows a reload at its own row. Every
    /// feed of the name must store its items the same way (the same ``ItemCodec``). See
    /// <doc:SharingItemsAcrossFeeds> for what it costs a write.
    ///
    /// ```swift
    /// struct Post: FeedItem, Codable {
    ///     static let sharedItemType: String? = "post"
    ///     let id: String
    ///     var isLiked: Bool
    /// }
    /// ```
    static var sharedItemType: String? { get }

    /// The fields of the item's JSON payload that search reads (empty by default: the type is not
    /// searchable, and its feeds pay nothing for search).
    ///
    /// Paths of keys separated by dots; a path that meets an array reads the rest of the path in
    /// each element. Markup in a field (Mastodon's HTML `content`) is indexed as its text. The file
    /// records the declaration when a feed opens, so that every writer of the file (another process,
    /// `pagedb seed`) indexes the same way:
    ///
    /// ```swift
    /// struct Status: FeedItem, Codable {
    ///     static let searchableFields = ["content", "account.display_name"]
    ///     let id: String
    ///     let content: String
    ///     let account: Account
    /// }
    /// ```
    static var searchableFields: [String] { get }
}

extension FeedItem {
    /// No sections by default.
    public var sectionKey: String? { nil }

    /// Nil by default: each feed keeps its own copy of its items.
    public static var sharedItemType: String? { nil }

    /// None by default: the type is not searchable.
    public static var searchableFields: [String] { [] }

    /// `String(describing: id)`, for ids that are neither strings nor integers (a `UUID`, say).
    public static func storedID(for id: ID) -> String { String(describing: id) }

    /// This item's id as the cache stores it.
    public var storedID: String { Self.storedID(for: id) }
}

extension FeedItem where ID == String {
    /// The id itself.
    public static func storedID(for id: ID) -> String { id }
}

extension FeedItem where ID: BinaryInteger {
    /// The id's decimal digits.
    public static func storedID(for id: ID) -> String { String(id) }
}

/// How a feed turns its items into the bytes stored in the cache, and back.
///
/// The default for `Codable` items is ``ItemCodec/json``: payloads are JSON text, readable with
/// `sqlite3` and `pagedb`. An app can supply its own, for example one that stores the bytes the
/// server sent so that nothing is encoded twice.
public struct ItemCodec<Item>: Sendable {
    /// Encodes an item for storage.
    public let encode: @Sendable (Item) throws -> Data
    /// Decodes an item read from storage.
    public let decode: @Sendable (Data) throws -> Item
    /// Whether payloads are text (stored as TEXT, so `sqlite3` shows them) or binary (stored as BLOB).
    public let storesText: Bool
    /// The id of the item a payload holds, for a codec whose decoded items do not carry it (`pagedb`'s
    /// JSON objects of any type take their id from their row): nil when the payload does not say
    /// (its id key is the app's). A pending edit's payloads are checked against their item's id by
    /// it, else by the decoded item's.
    package var payloadID: (@Sendable (Data) -> String?)?

    /// Creates a codec from its two directions.
    /// - Parameters:
    ///   - storesText: Whether the payloads are UTF-8 text.
    ///   - encode: Encodes an item for storage.
    ///   - decode: Decodes an item read from storage.
    public init(
        storesText: Bool, encode: @escaping @Sendable (Item) throws -> Data,
        decode: @escaping @Sendable (Data) throws -> Item
    ) {
        self.storesText = storesText
        self.encode = encode
        self.decode = decode
    }
}

extension ItemCodec where Item: Codable & Sendable {
    /// JSON with sorted keys, so the same item always encodes to the same bytes and a refresh can tell
    /// a changed item (a reload) from an unchanged one. One decoder serves every read, since building
    /// one per item costs as much as a small decode.
    public static var json: ItemCodec<Item> {
        let coders = JSONCoders()
        return ItemCodec(
            storesText: true, encode: { item in try coders.encoder.encode(item) },
            decode: { data in try coders.decoder.decode(Item.self, from: data) })
    }
}

/// A JSON encoder and decoder configured once and then only used, never changed: safe to share.
private final class JSONCoders: @unchecked Sendable {
    let encoder: JSONEncoder
    let decoder = JSONDecoder()

    init() {
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    }
}
