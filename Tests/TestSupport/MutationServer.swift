public import Foundation

/// A server of mutations that applies each idempotency key once, as a server that honours the key
/// does, and remembers every send: what reached it, how often, and what it applied.
public final class MutationServer: @unchecked Sendable {
    // @unchecked: `sends` and `applied` are only touched under `lock`.
    private let lock = NSLock()
    private var sends: [(key: UUID, mutation: String)] = []
    private var applied: [UUID: String] = [:]
    private var order: [UUID] = []

    /// A server that has applied nothing yet.
    public init() {}

    /// Receives `mutation` under `key`: applied the first time, recognised as done after that.
    /// - Returns: Whether this send applied it.
    @discardableResult
    public func receive(_ mutation: String, key: UUID) -> Bool {
        lock.withLock {
            sends.append((key, mutation))
            guard applied[key] == nil else { return false }
            applied[key] = mutation
            order.append(key)
            return true
        }
    }

    /// The mutations applied, in the order they were applied.
    public var appliedMutations: [String] { lock.withLock { order.compactMap { applied[$0] } } }

    /// How many times each key was sent.
    public var sendsByKey: [UUID: Int] {
        lock.withLock { sends.reduce(into: [:]) { $0[$1.key, default: 0] += 1 } }
    }

    /// Every send, in order.
    public var sentMutations: [String] { lock.withLock { sends.map(\.mutation) } }
}
