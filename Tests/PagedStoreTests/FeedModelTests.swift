import Foundation
import Observation
import TestSupport
import Testing

@testable import PagedStore

/// The observable model, on the main actor, with Observation's change tracking.
@MainActor
@Suite(.limit(minutes: 3)) struct FeedModelTests {
    @Test func theModelFollowsTheFeedAndNotifiesObservers() async throws {
        let test = try FeedTestCase()
        let server = ModelServer(.posts("p", 25), pageSize: 10)
        let model = await FeedModel(feed: try test.feed(server.source))
        #expect(model.content == .initialLoading)

        let changed = Locked(false)
        withObservationTracking {
            _ = model.rows.count
            _ = model.content
        } onChange: {
            changed.value = true
        }
        await model.refresh()
        #expect(changed.value, "observers of rows and content were told")
        #expect(model.content == .content)
        #expect(model.rows.count == 10)
        #expect(model.lastChange.insertedRows.count == 10)

        await model.loadNextPage()
        #expect(model.rows.count == 20)
        #expect(model.lastChange.insertedRows.map { $0[1] } == Array(10..<20))

        server.items = .posts("new", 2) + server.items
        await model.refresh()
        #expect(model.rows[0]?.id == "new0")
        #expect(model.refreshActivity == .idle)
        model.stop()
    }
}
