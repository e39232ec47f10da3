import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// What must never leak or be spliced: cursors and payloads stay out of messages, values are bound.
@Suite(.limit(minutes: 3)) struct SecurityTests {
    static let secretCursor = "token=SECRET-CURSOR-123"
    static let secretPayload = "SECRET-PAYLOAD-456"

    @Test func cursorsAndPayloadsNeverAppearInErrorsOrEvents() async throws {
        let test = try FeedTestCase()
        let attempts = Locked(0)
        let source = ScriptedSource<Post> { request in
            switch attempts.increment() {
            case 1: return Page(items: [Post(id: Self.secretPayload)], olderCursor: Self.secretCursor)
            default: return Page(items: [Post(id: "x")], olderCursor: request.cursor)  // a cursor loop
            }
        }
        let feed = try test.feed(source)
        let events = await feed.events
        await feed.refresh()
        await feed.loadNextPage()
        guard case .failed(let error) = await feed.snapshot.nextPage else {
            Issue.record("expected a loop error")
            return
        }
        #expect(!error.message.contains("SECRET"))
        #expect(!String(describing: PageRequest.olderThan(cursor: Self.secretCursor)).contains("SECRET"))
        var seen = 0
        for await event in events {
            #expect(!String(describing: event).contains("SECRET-CURSOR"), "\(event)")
            seen += 1
            if event.kind == .failed { break }
        }
        #expect(seen >= 3)
    }

    @Test func storageErrorsDescribeTheSQLButNotItsValues() throws {
        let test = try FeedTestCase()
        let queue = try DatabaseQueue(path: test.path)
        let error = #expect(throws: StorageError.self) {
            try queue.write { store in
                var feed = try store.ensureFeed(key: "home")
                let item = EncodedItem(itemID: Self.secretPayload, payload: Data(Self.secretPayload.utf8))
                try store.prependPage(
                    [item, item],
                    page: PageWrite(
                        request: .first, requestCursor: Self.secretCursor, olderCursor: nil, newerCursor: nil),
                    to: &feed)
            }
        }
        #expect(error?.kind == .constraint)
        #expect(error?.sql?.contains("INSERT INTO item") == true)
        #expect(error.map { !$0.description.contains("SECRET") } == true)
    }
}
