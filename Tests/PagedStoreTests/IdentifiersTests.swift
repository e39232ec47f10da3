import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// The identifier view for diffable data sources: read from the id column without decoding items,
/// consistent with its snapshot, unique, and accepted by a snapshot of `NSDiffableDataSourceSnapshot`'s
/// shape.
@Suite(.limit(minutes: 3)) struct IdentifiersTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    @Test func identifiersOfALargeFeedDecodeNoItem() async throws {
        let server = ModelServer(.posts("p", 3_000), pageSize: 1_000)
        let decodes = DecodeCounter()
        let policy = FeedPolicy(refreshOnOpen: .never, windowSize: 50, firstScreenRows: 20)
        let feed = try test.store().feed("home", source: server.source, policy: policy, codec: decodes.codec)
        await feed.refresh()
        await feed.loadNextPage()
        await feed.loadNextPage()
        #expect(await feed.snapshot.rows.count == 3_000)
        let before = decodes.count
        let identifiers = try await feed.identifiers()
        #expect(decodes.count == before, "reading identifiers decoded items")
        #expect(identifiers.all == server.items.map(\.id))
        #expect(identifiers.sequence == (await feed.snapshot.sequence))
        #expect(identifiers.sectionIDs == [FeedSectionID(key: nil, occurrence: 0)])
    }

    @Test func identifiersOfAnOlderSnapshotAreNil() async throws {
        let server = ModelServer(.posts("p", 3), pageSize: 10)
        let feed = try test.feed(server.source)
        let first = await feed.snapshot
        await feed.refresh()
        #expect(try await feed.identifiers(of: first) == nil)
        let current = await feed.snapshot
        #expect(try await feed.identifiers(of: current)?.all == ["p0", "p1", "p2"])
    }

    @Test func aKeyHeadingTwoSectionsGivesTwoSectionIDsAndTheDiffableShapeIsFilled() async throws {
        let items: [Post] = .posts("a", 2, section: "A") + .posts("b", 1, section: "B") + .posts("c", 2, section: "A")
        let server = ModelServer(items, pageSize: 10)
        let feed = try test.feed(server.source)
        await feed.refresh()
        try await feed.update(Post(id: "c1", revision: 3, section: "A"))
        let snapshot = await feed.snapshot
        let identifiers = try #require(try await feed.identifiers(of: snapshot))
        #expect(
            identifiers.sectionIDs == [
                FeedSectionID(key: "A", occurrence: 0), FeedSectionID(key: "B", occurrence: 0),
                FeedSectionID(key: "A", occurrence: 1),
            ])
        var diffable = DiffableShape<FeedSectionID, String>()
        identifiers.build(into: &diffable, reconfiguring: snapshot.change)
        #expect(diffable.itemIdentifiers == ["a0", "a1", "b0", "c0", "c1"])
        #expect(diffable.sections.map(\.items) == [["a0", "a1"], ["b0"], ["c0", "c1"]])
        #expect(diffable.reconfigured == ["c1"])
    }
}

/// `NSDiffableDataSourceSnapshot`'s shape, generic as it is, with the same conditional conformance
/// the library declares for the real one on Apple platforms. It records an issue where UIKit raises:
/// repeated identifiers, and reconfiguring an identifier it lacks.
struct DiffableShape<SectionIdentifierType: Hashable, ItemIdentifierType: Hashable> {
    var sections: [(id: SectionIdentifierType, items: [ItemIdentifierType])] = []
    var reconfigured: [ItemIdentifierType] = []
    var itemIdentifiers: [ItemIdentifierType] { sections.flatMap(\.items) }

    mutating func appendSections(_ identifiers: [SectionIdentifierType]) {
        for id in identifiers {
            if sections.contains(where: { $0.id == id }) { Issue.record("supplied section identifiers are not unique") }
            sections.append((id, []))
        }
    }

    mutating func appendItems(_ identifiers: [ItemIdentifierType], toSection sectionIdentifier: SectionIdentifierType?)
    {
        let all = Set(itemIdentifiers)
        if Set(identifiers).count != identifiers.count || !all.isDisjoint(with: identifiers) {
            Issue.record("supplied item identifiers are not unique")
        }
        guard
            let index = sectionIdentifier.flatMap({ id in sections.firstIndex { $0.id == id } })
                ?? sections.indices.last
        else { return }
        sections[index].items += identifiers
    }

    mutating func reconfigureItems(_ identifiers: [ItemIdentifierType]) {
        if !Set(identifiers).isSubset(of: itemIdentifiers) { Issue.record("reconfigured an item the snapshot lacks") }
        reconfigured += identifiers
    }
}

extension DiffableShape: DiffableSnapshotBuilding
where SectionIdentifierType == FeedSectionID, ItemIdentifierType == String {}

/// The JSON codec, counting its decodes.
final class DecodeCounter: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var decodes = 0
    var count: Int { lock.withLock { decodes } }

    var codec: ItemCodec<Post> {
        let json = ItemCodec<Post>.json
        return ItemCodec(storesText: true, encode: json.encode) { [self] data in
            lock.withLock { decodes += 1 }
            return try json.decode(data)
        }
    }
}
