import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// The rule of what becomes of a pending edit when its rows leave by a path that did not ask it.
@Suite(.limit(minutes: 3)) struct PendingEditFateTests {
    static func edit(queued: Bool, kind: PendingEditRecord.Kind = .update) -> PendingEditRecord {
        PendingEditRecord(
            itemID: "p1", kind: kind, base: Data("{}".utf8), edited: kind == .remove ? nil : Data("{}".utf8),
            createdAt: Date(),
            queued: queued ? QueuedEdit(kind: "like", argument: Data("{}".utf8), idempotencyKey: UUID()) : nil)
    }

    @Test(arguments: [PendingEditFate.Loss.modelChanged, .undecodable])
    func anEditMadeByKindStaysQueuedWhateverTookItsRow(_ loss: PendingEditFate.Loss) {
        for kind in [PendingEditRecord.Kind.update, .insert, .remove] {
            #expect(PendingEditFate.of(Self.edit(queued: true, kind: kind), when: loss) == .detach)
        }
    }

    @Test func anEditMadeWithAClosureGoesWithItsRowAndSaysWhy() {
        guard case .drop(let modelChanged) = PendingEditFate.of(Self.edit(queued: false), when: .modelChanged),
            case .drop(let undecodable) = PendingEditFate.of(Self.edit(queued: false), when: .undecodable)
        else {
            Issue.record("a closure edit is dropped")
            return
        }
        #expect(modelChanged.contains("cache version"))
        #expect(undecodable.contains("no longer decodes"))
    }
}
