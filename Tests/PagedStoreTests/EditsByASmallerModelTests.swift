import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A target whose model lacks fields the app's model has (a widget, an older version of the app)
/// edits rows the app wrote: the fields it does not know stay in the file, the ones it changed or
/// cleared are changed or cleared, and a model that knows every field writes what its codec gives.
@Suite(.limit(minutes: 3)) struct EditsByASmallerModelTests {
    /// The app's post.
    struct AppPost: FeedItem, Codable, Equatable {
        let id: String
        var likes = 0
        var note: String?
        var media: Media? = Media(url: "https://example.com/a.jpg", alt: "a cat")
        var author = Author(name: "Ada", bio: "writes")
        var attachments = [Attachment(url: "https://example.com/1.jpg", alt: "one")]
        var price = Decimal(string: "12.5") ?? 0
        var group: String? = "friends"

        var sectionKey: String? { group }
    }

    struct Media: Codable, Equatable {
        var url: String
        var alt: String
    }

    struct Author: Codable, Equatable {
        var name: String
        var bio: String
    }

    struct Attachment: Codable, Equatable {
        var url: String
        var alt: String?
    }

    /// The widget's post: no media, and of the author only the name.
    struct WidgetPost: FeedItem, Codable, Equatable {
        let id: String
        var likes = 0
        var note: String?
        var author: WidgetAuthor
        var attachments: [WidgetAttachment] = []
    }

    struct WidgetAttachment: Codable, Equatable {
        var url: String
    }

    /// The attachment every post starts with, as the widget's model reads it.
    static let firstAttachment = WidgetAttachment(url: "https://example.com/1.jpg")

    struct WidgetAuthor: Codable, Equatable {
        var name: String
    }

    let test: FeedTestCase
    let server: [AppPost] = [AppPost(id: "p0", note: "pinned"), AppPost(id: "p1"), AppPost(id: "p2")]

    init() throws { test = try FeedTestCase() }

    /// The app's feed of the server's posts, refreshed, and the widget's feed of the same key on
    /// another store of the file.
    func appAndWidget(
        serving posts: @escaping @Sendable () -> [AppPost] = { [] }
    ) async throws -> (Feed<AppPost>, Feed<WidgetPost>) {
        let first = server
        let app = try test.store().feed(
            "home", source: ScriptedSource { _ in Page(items: posts().isEmpty ? first : posts(), olderCursor: nil) },
            policy: FeedPolicy(refreshOnOpen: .never))
        await app.refresh()
        let widget = try test.store().feed(
            "home", source: ScriptedSource<WidgetPost> { _ in Page(items: [], olderCursor: nil) },
            policy: FeedPolicy(refreshOnOpen: .never))
        return (app, widget)
    }

    func appPostsOnDisk() throws -> [AppPost] { try test.itemsOnDisk(of: AppPost.self, key: "home") }

    /// The section of each row, as the file has it.
    func sectionsOnDisk() throws -> [String?] {
        try DatabaseQueue(path: test.path).read { store in
            guard let feed = try store.feed(key: "home") else { return [] }
            return try store.window(of: feed, from: .top, limit: Int.max).map(\.section)
        }
    }

    @Test func anUpdateByTheWidgetKeepsTheFieldsItsModelLacks() async throws {
        let (_, widget) = try await appAndWidget()
        #expect(
            try await widget.update(
                WidgetPost(
                    id: "p1", likes: 5, author: WidgetAuthor(name: "Ada L."), attachments: [Self.firstAttachment])))
        var expected = server
        expected[1].likes = 5
        expected[1].author.name = "Ada L."
        #expect(try appPostsOnDisk() == expected)
        #expect(try sectionsOnDisk() == ["friends", "friends", "friends"], "the widget's model has no sections")
    }

    @Test func anOptimisticEditByTheWidgetKeepsThemAndClearsWhatItCleared() async throws {
        let (_, widget) = try await appAndWidget()
        #expect(
            try await widget.edit(
                id: "p0",
                {
                    $0.note = nil; $0.likes += 1
                }, commit: { _ in }))
        var expected = server
        expected[0].note = nil
        expected[0].likes = 1
        #expect(try appPostsOnDisk() == expected)
    }

    @Test func aQueuedEditByTheWidgetKeepsThemWhileQueuedAndOverTheServersNewValue() async throws {
        let refreshed = Locked<[AppPost]>([])
        let (app, widget) = try await appAndWidget(serving: { refreshed.value })
        _ = try await widget.enqueue("like", id: "p2", argument: true) { $0.likes += 1 }
        var expected = server
        expected[2].likes = 1
        #expect(try appPostsOnDisk() == expected)
        // The server changes the fields the widget does not know: the edit is carried onto them.
        var newer = server
        newer[2].media = Media(url: "https://example.com/b.jpg", alt: "a dog")
        newer[2].author.bio = "writes more"
        refreshed.value = newer
        await app.refresh()
        let pinned = WidgetPost(
            id: "p0", likes: 9, note: "pinned", author: WidgetAuthor(name: "Ada"), attachments: [Self.firstAttachment])
        _ = try await widget.update(pinned)
        newer[2].likes = 1
        newer[0].likes = 9
        #expect(try appPostsOnDisk() == newer)
        #expect(try sectionsOnDisk() == ["friends", "friends", "friends"])
    }

    @Test func anEditOfAnArrayKeepsTheFieldsOfItsElementsThatTheModelLacks() async throws {
        let (_, widget) = try await appAndWidget()
        let url = "https://example.com/2.jpg"
        #expect(
            try await widget.edit(id: "p1", { $0.attachments.append(WidgetAttachment(url: url)) }, commit: { _ in }))
        #expect(try await widget.edit(id: "p2", { $0.attachments[0].url = url }, commit: { _ in }))
        var expected = server
        expected[1].attachments.append(Attachment(url: url))
        expected[2].attachments[0].url = url
        #expect(try appPostsOnDisk() == expected)
    }

    @Test func aModelThatKnowsEveryFieldWritesItsCodecsBytesOverBytesWrittenByHand() async throws {
        let (app, _) = try await appAndWidget()
        var edited = server[1]
        edited.price = Decimal(string: "12345678901234567890.123") ?? 0  // more digits than a Double's
        let json = String(decoding: try ItemCodec<AppPost>.json.encode(edited), as: UTF8.self)
        let spaced = json.replacingOccurrences(of: ",", with: ", ").replacingOccurrences(of: "'", with: "''")
        try ForeignWriter.execute("UPDATE item SET payload = '\(spaced)' WHERE item_id = 'p1'", on: test.path)
        edited.likes = 1
        #expect(try await app.update(edited))
        let stored = try DatabaseQueue(path: test.path).read { store in
            try store.feed(key: "home").flatMap { try store.items(withIDs: ["p1"], in: $0)["p1"] }
        }
        #expect(stored?.payload == (try ItemCodec<AppPost>.json.encode(edited)), "the price keeps every digit")
    }

    @Test func aModelThatKnowsEveryFieldWritesItsCodecsBytes() async throws {
        let (app, _) = try await appAndWidget()
        var edited = server[1]
        edited.likes = 3
        edited.media = nil
        #expect(try await app.update(edited))
        let stored = try DatabaseQueue(path: test.path).read { store in
            try store.feed(key: "home").flatMap { try store.items(withIDs: ["p1"], in: $0)["p1"] }
        }
        #expect(stored?.payload == (try ItemCodec<AppPost>.json.encode(edited)))
    }
}
