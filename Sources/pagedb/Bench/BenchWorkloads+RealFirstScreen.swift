import Foundation
import PagedStore
import PagedStoreFixtures
import PagedStoreTesting

/// FS-real: the first screen of a timeline with items of a real size and shape, decoded.
extension BenchWorkloads {
    static let realFeeds = 100
    static let realFeedRows = 40
    static let realScreenRows = 20

    /// FS-real: 20 rows of a realistic ~3 KB timeline payload (nested account, media, HTML content,
    /// fractional ISO 8601 dates), from opening the feed to its first snapshot with the rows decoded
    /// into a `Codable` struct, against the floor: the same rows read raw and decoded with the same
    /// `JSONDecoder`. Also times the decode alone (per item) and the engine with an app codec that
    /// keeps the stored bytes (`JSONItem.codec`: the app decodes a row when it shows it).
    func realFirstScreen() async throws {
        let path = dir + "/fsreal.db"
        let decoder = TimelinePost.decoder
        let codec = ItemCodec<TimelinePost>(
            storesText: true, encode: { try TimelinePost.encoder.encode($0) },
            decode: { try decoder.decode(TimelinePost.self, from: $0) })
        let policy = FeedPolicy(refreshOnOpen: .never, firstScreenRows: Self.realScreenRows)
        let store = try FeedStore(path: path)
        let existing = try DatabaseQueue(path: path).read { try $0.feeds().count }
        if existing != Self.realFeeds {
            for feed in 0..<Self.realFeeds {
                let posts = (0..<Self.realFeedRows).map { TimelinePost.make(items, feed * 1000 + $0) }
                let source = ScriptedSource<TimelinePost> { _ in Page(items: posts, olderCursor: nil) }
                await (try store.feed(Self.realKey(feed), source: source, policy: policy, codec: codec)).refresh()
            }
        }
        let idle = ScriptedSource<TimelinePost> { _ in Page(items: [], olderCursor: nil) }
        let rawIdle = ScriptedSource<JSONItem> { _ in Page(items: [], olderCursor: nil) }
        // Opening a feed records its policy once; do that for both codecs' policies before timing.
        for feed in 0..<Self.realFeeds {
            _ = try store.feed(Self.realKey(feed), source: idle, policy: policy, codec: codec)
        }
        let queue = try DatabaseQueue(path: path, mode: .readOnly)
        var engine: [Double] = []
        var raw: [Double] = []
        var floor: [Double] = []
        var read: [Double] = []
        var bytes = 0
        for sample in 0..<Self.samples {
            let key = Self.realKey(Int(items.random(tag: 4, UInt64(sample)) % UInt64(Self.realFeeds)))
            var start = BenchClock.wall()
            let snapshot = await (try store.feed(key, source: idle, policy: policy, codec: codec)).snapshot
            engine.append(BenchClock.wall() - start)
            start = BenchClock.wall()
            let rawSnapshot = await (try store.feed(key, source: rawIdle, policy: policy, codec: JSONItem.codec))
                .snapshot
            raw.append(BenchClock.wall() - start)
            start = BenchClock.wall()
            let rows = try queue.readStatement { try $0.topRows(ofFeedKey: key, limit: Self.realScreenRows) }
            let readDone = BenchClock.wall()
            let posts = try rows.map { try decoder.decode(TimelinePost.self, from: $0.payload) }
            floor.append(BenchClock.wall() - start)
            read.append(readDone - start)
            bytes += rows.reduce(0) { $0 + $1.payload.count }
            guard snapshot.rows.loadedRange == 0..<Self.realScreenRows, posts.count == Self.realScreenRows,
                snapshot.rows[0]?.id == posts[0].id, rawSnapshot.rows[0]?.json == rows[0].payload
            else { throw BenchFailure("FS-real decoded the wrong first screen") }
        }
        let median = { (values: [Double]) in Double(BenchClock.medianMicroseconds(values)) ?? 0 }
        let decodeNanoseconds = (median(floor) - median(read)) * 1000 / Double(Self.realScreenRows)
        print(
            "FSreal impl=pagedstore rows=\(Self.realScreenRows) avg_payload_bytes=\(bytes / (Self.samples * Self.realScreenRows)) "
                + "engine_median_us=\(BenchClock.medianMicroseconds(engine)) "
                + "floor_median_us=\(BenchClock.medianMicroseconds(floor)) "
                + "ratio=\(String(format: "%.2f", median(engine) / max(median(floor), 0.001))) "
                + "raw_read_median_us=\(BenchClock.medianMicroseconds(read)) "
                + "decode_ns_per_item=\(Int(decodeNanoseconds)) "
                + "engine_bytes_codec_median_us=\(BenchClock.medianMicroseconds(raw))")
    }

    static func realKey(_ feed: Int) -> String { "timeline_\(feed)" }
}

/// A timeline post as a real app models one (a Mastodon-like status): nested account and media,
/// HTML content, ISO 8601 dates with fractional seconds. About 3 KB of JSON.
struct TimelinePost: FeedItem, Codable, Equatable {
    struct Account: Codable, Equatable {
        let id: String
        let username: String
        let displayName: String
        let avatar: URL
        let header: URL
        let note: String
        let followersCount: Int
        let followingCount: Int
        let createdAt: Date
        let bot: Bool

        enum CodingKeys: String, CodingKey {
            case id, username, avatar, header, note, bot
            case displayName = "display_name", followersCount = "followers_count"
            case followingCount = "following_count", createdAt = "created_at"
        }
    }

    struct Media: Codable, Equatable {
        struct Size: Codable, Equatable {
            let width: Int
            let height: Int
            let aspect: Double
        }
        let id: String
        let type: String
        let url: URL
        let previewURL: URL
        let description: String
        let original: Size
        let small: Size
        let blurhash: String

        enum CodingKeys: String, CodingKey {
            case id, type, url, description, original, small, blurhash
            case previewURL = "preview_url"
        }
    }

    let id: String
    let createdAt: Date
    let editedAt: Date?
    let url: URL
    let content: String
    let spoilerText: String
    let language: String
    let repliesCount: Int
    let reblogsCount: Int
    let favouritesCount: Int
    let sensitive: Bool
    let account: Account
    let mediaAttachments: [Media]
    let tags: [String]

    enum CodingKeys: String, CodingKey {
        case id, url, content, language, sensitive, account, tags
        case createdAt = "created_at", editedAt = "edited_at", spoilerText = "spoiler_text"
        case repliesCount = "replies_count", reblogsCount = "reblogs_count"
        case favouritesCount = "favourites_count", mediaAttachments = "media_attachments"
    }

    /// ISO 8601 with milliseconds, as such servers send dates (`2023-11-14T22:13:20.123Z`).
    static let dateStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            return try dateStyle.parse(text)
        }
        return decoder
    }

    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.formatted(dateStyle))
        }
        return encoder
    }

    /// Post number `number`, deterministic: text cut from the workload's generator, sizes from its randoms.
    static func make(_ items: SyntheticItems, _ number: Int) -> TimelinePost {
        let id = items.itemID(number)
        let random = { (tag: UInt64) in Int(items.random(tag: tag, UInt64(number)) % 1_000_000) }
        // The payload's body: the workload's lorem ipsum, cut at a place that depends on the number.
        let payload = String(decoding: items.payload(number), as: UTF8.self)
        let body = payload.components(separatedBy: "\"body\":\"").last?.dropLast(2) ?? ""
        let lorem = String(repeating: body + " ", count: 4)
        let created = Date(timeIntervalSince1970: 1_700_000_000 + Double(number) + Double(random(6) % 1000) / 1000)
        let host = "https://social.example"
        let account = Account(
            id: "acct_\(random(2))", username: "user_\(random(2) % 10_000)",
            displayName: "User \(random(2) % 10_000) 🌿",
            avatar: URL(string: "\(host)/system/accounts/avatars/\(random(2))/original/a.png")
                ?? URL(fileURLWithPath: "/"),
            header: URL(string: "\(host)/system/accounts/headers/\(random(2))/original/h.jpg")
                ?? URL(fileURLWithPath: "/"),
            note:
                "<p>Writes about Swift, SQLite &amp; offline apps. <a href=\"\(host)/tags/swift\" class=\"mention hashtag\" "
                + "rel=\"tag\">#<span>swift</span></a></p>",
            followersCount: random(7), followingCount: random(8) % 5000,
            createdAt: Date(timeIntervalSince1970: 1_600_000_000 + Double(random(2)) + 0.5), bot: false)
        let media = (0..<2).map { index in
            Media(
                id: "m_\(random(9))_\(index)", type: "image",
                url: URL(string: "\(host)/media/\(random(9))/\(index)/original.jpg") ?? URL(fileURLWithPath: "/"),
                previewURL: URL(string: "\(host)/media/\(random(9))/\(index)/small.jpg") ?? URL(fileURLWithPath: "/"),
                description: "Alt text: " + lorem.prefix(150),
                original: .init(width: 1920, height: 1080, aspect: 1.7777),
                small: .init(width: 640, height: 360, aspect: 1.7777), blurhash: "UeKUpFxuo~R%0nW;WCnhF6RjaJt757oJodS$")
        }
        let paragraphs = (0..<6).map { index in
            "<p>\(lorem.dropFirst(index * 20).prefix(160)) <a href=\"\(host)/@user_\(index)\" class=\"u-url mention\">"
                + "@<span>user_\(index)</span></a></p>"
        }
        return TimelinePost(
            id: id, createdAt: created, editedAt: number % 3 == 0 ? created.addingTimeInterval(61.25) : nil,
            url: URL(string: "\(host)/@user/\(id)") ?? URL(fileURLWithPath: "/"), content: paragraphs.joined(),
            spoilerText: "", language: "en", repliesCount: random(10) % 100, reblogsCount: random(11) % 1000,
            favouritesCount: random(12) % 5000, sensitive: false, account: account, mediaAttachments: media,
            tags: ["swift", "sqlite", "offline"])
    }
}
