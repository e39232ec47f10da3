import Foundation
import TestSupport
import Testing

@testable import PagedStore

extension FeedTestCase {
    /// The section a row of the feed "home" is filed under, and the section its payload names.
    func sectionOnDisk(of itemID: String) throws -> (column: String?, payload: String?) {
        try DatabaseQueue(path: path).read { store in
            guard let feed = try store.feed(key: "home"),
                let stored = try store.items(withIDs: [itemID], in: feed)[itemID]
            else { return (nil, nil) }
            return (stored.section, try ItemCodec<Post>.json.decode(stored.payload).section)
        }
    }

    /// What `verify()` finds in the file.
    func violations() throws -> [InvariantViolation] {
        try DatabaseQueue(path: path).read { try $0.verify() }
    }

    /// Checks that the row of `id` is filed under the section its payload names, that the snapshot
    /// shows `sectioned` ids by section, and that `verify()` finds nothing.
    func expectSectionsConsistent(
        _ id: String, _ snapshot: FeedSnapshot<Post>, _ sectioned: [[String]],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let disk = try sectionOnDisk(of: id)
        #expect(
            disk.column == disk.payload,
            "the row's section column \(String(describing: disk.column)) but its payload says \(String(describing: disk.payload))",
            sourceLocation: sourceLocation)
        #expect(snapshot.sectionedIDs == sectioned, sourceLocation: sourceLocation)
        #expect(try violations().isEmpty, sourceLocation: sourceLocation)
    }
}
