import Foundation
import TestSupport

/// How many times the handlers were called for each idempotency key: one edit sent twice shows.
final class SendCounts: Sendable {
    private let counts = Locked<[UUID: Int]>([:])

    /// Counts one send of the edit with `key`.
    func add(_ key: UUID) { counts.mutate { $0[key, default: 0] += 1 } }

    /// The sends of the edit with `key` so far.
    func count(_ key: UUID) -> Int { counts.value[key] ?? 0 }
}
