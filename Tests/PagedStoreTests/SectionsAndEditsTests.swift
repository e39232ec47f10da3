import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Architecture rules 9 and 10: sections, and local edits persisted and reported with index paths.
@Suite(.limit(minutes: 3)) struct SectionsAndEditsTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    @Test func indexPathsCarrySectionsAndNewSectionsAreReported() async throws {
        let server = ModelServer(
            .posts("mon", 3, section: "Monday") + .posts("sun", 2, section: "Sunday"), pageSize: 10)
        let feed = try test.feed(server.source)
        await feed.refresh()
        #expect(await feed.snapshot.sections.map(\.key) == ["Monday", "Sunday"])
        #expect(await feed.snapshot.sections.map(\.rowCount) == [3, 2])

        server.items = .posts("tue", 2, section: "Tuesday") + [Post(id: "mon9", section: "Monday")] + server.items
        await feed.refresh()
        let snapshot = await feed.snapshot
        #expect(snapshot.sections.map(\.key) == ["Tuesday", "Monday", "Sunday"])
        #expect(snapshot.change.insertedSections == IndexSet([0]))
        #expect(snapshot.change.insertedRows == [IndexPath(indexes: [1, 0])], "rows of a new section are not listed")
        #expect(snapshot.indexPath(ofRow: 3) == IndexPath(indexes: [1, 1]))
    }

    @Test func aSectionWhoseRowsAreAllRemovedIsReportedDeleted() async throws {
        let server = ModelServer([Post(id: "a", section: "A"), Post(id: "b", section: "B")], pageSize: 10)
        let feed = try test.feed(server.source)
        await feed.refresh()
        try await feed.remove(id: "a")
        let snapshot = await feed.snapshot
        #expect(snapshot.change.deletedSections == IndexSet([0]))
        #expect(snapshot.change.deletedRows.isEmpty)
        #expect(snapshot.sections.map(\.key) == ["B"])
    }

    @Test func localEditsArePersistedAndReportedWithIndexPaths() async throws {
        let server = ModelServer(.posts("p", 5), pageSize: 10)
        let feed = try test.feed(server.source)
        await feed.refresh()

        #expect(try await feed.remove(id: "p1"))
        #expect(await feed.snapshot.change.deletedRows == [IndexPath(indexes: [0, 1])])

        #expect(try await feed.update(Post(id: "p3", revision: 7)))
        #expect(await feed.snapshot.change.reloadedRows == [IndexPath(indexes: [0, 2])])
        #expect(await feed.snapshot.rows[2]?.revision == 7)

        try await feed.insert(Post(id: "mine"), at: 1)
        #expect(await feed.snapshot.change.insertedRows == [IndexPath(indexes: [0, 1])])

        let expected = ["p0", "mine", "p2", "p3", "p4"]
        #expect(await feed.snapshot.ids == expected)
        #expect(try test.idsOnDisk() == expected)
        let relaunched = try test.feed(server.source)
        #expect(await relaunched.snapshot.rows[3]?.revision == 7)
        #expect(try await feed.remove(id: "absent") == false)
    }

    @Test func insertingBetweenAdjacentPositionsRenumbersBelow() async throws {
        let feed = try test.feed(ModelServer([], pageSize: 10).source)
        for index in 0..<40 {
            try await feed.insert(Post(id: "i\(index)"), at: 1)  // always between rows 0 and 1
        }
        let ids = await feed.snapshot.ids
        #expect(ids.count == 40)
        #expect(ids.first == "i0")
        #expect(Array(ids.dropFirst()) == (1..<40).reversed().map { "i\($0)" })
        #expect(try test.idsOnDisk() == ids)
    }
}

/// Local edits that split and merge a section's runs.
extension SectionsAndEditsTests {
    /// A local insert that splits a section's run, its removal (the runs merge again), and an update
    /// that moves a row into another section: each change applies as UIKit reads it.
    @Test func localEditsThatSplitAndMergeSectionRunsApply() async throws {
        let server = ModelServer(.posts("a", 6, section: "A") + .posts("b", 6, section: "B"), pageSize: 20)
        let feed = try test.feed(server.source)
        let recorder = await SnapshotRecorder(feed)
        await feed.refresh()
        try await feed.insert(Post(id: "x", section: "B"), at: 2)
        try await ReferenceModelTests.check(recorder, feed, test, "split")
        try await feed.remove(id: "x")
        try await ReferenceModelTests.check(recorder, feed, test, "merge")
        try await feed.update(Post(id: "a3", revision: 1, section: "B"))
        try await ReferenceModelTests.check(recorder, feed, test, "update into another section")
        try await feed.update(Post(id: "a3", revision: 2, section: "A"))
        try await feed.insert(Post(id: "y", section: "A"), at: 12)
        try await feed.insert(Post(id: "z", section: "C"), at: 0)
        try await ReferenceModelTests.check(recorder, feed, test, "recurring")
        for id in ["z", "y"] + (0..<6).map({ "b\($0)" }) { try await feed.remove(id: id) }
        try await ReferenceModelTests.check(recorder, feed, test, "remove all B")
        for id in (0..<6).map({ "a\($0)" }) { try await feed.remove(id: id) }
        try await ReferenceModelTests.check(recorder, feed, test, "remove every row")
        #expect(await feed.snapshot.content == .empty)
        await feed.refresh()
        try await ReferenceModelTests.check(recorder, feed, test, "refresh after removing every row")
    }
}

/// A refresh that moves and changes items across sections.
extension SectionsAndEditsTests: FeedRuleSuite {
    /// A refresh whose page moves an item into another section and changes it, while another item
    /// in a different section changes in place: every changed item is reconfigured, the batch holds.
    @Test func aRefreshThatMovesAndChangesItemsAcrossSections() async throws {
        let first = [
            Post(id: "a", section: "A"), Post(id: "b", section: "A"), Post(id: "c", section: "B"),
            Post(id: "d", section: "B"), Post(id: "e", section: "C"), Post(id: "f", section: "C"),
        ]
        let second = [
            Post(id: "e", revision: 1, section: "A"), Post(id: "a", section: "A"), Post(id: "b", section: "A"),
            Post(id: "c", revision: 1, section: "B"), Post(id: "d", section: "B"), Post(id: "f", section: "C"),
        ]
        let pages = Locked([first, second])
        let source = ScriptedSource<Post> { _ in
            var page: [Post] = []
            pages.mutate { page = $0.count > 1 ? $0.removeFirst() : $0[0] }
            return Page(items: page, olderCursor: nil)
        }
        let feed = try test.feed(source, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap))
        await feed.refresh()
        let recorder = await SnapshotRecorder(feed)
        await feed.refresh()
        #expect(try test.idsOnDisk() == ["e", "a", "b", "c", "d", "f"])
        try await check(recorder, feed, "moved and changed across sections")
    }
}
