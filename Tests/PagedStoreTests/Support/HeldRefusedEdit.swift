import Foundation
import PagedStore

/// An optimistic edit or removal whose server call is under way: it shows at once, and its call
/// fails once the test lets it answer.
struct HeldRefusedEdit {
    private struct Refused: Error {}

    private let answer: AsyncStream<Void>.Continuation
    private let editing: Task<Void, any Error>

    /// Starts an edit of `id` in `feed` with `change`, and returns once its call is under way.
    init<Item: FeedItem & Codable>(
        of id: Item.ID, in feed: Feed<Item>, _ change: @escaping @Sendable (inout Item) -> Void
    ) async where Item.ID: Sendable {
        await self.init { call in try await feed.edit(id: id, change) { _ in try await call() } }
    }

    /// Starts a removal of `id` from `feed`, and returns once its call is under way.
    init<Item: FeedItem & Codable>(removing id: Item.ID, from feed: Feed<Item>) async where Item.ID: Sendable {
        await self.init { call in _ = try await feed.remove(id: id) { _ in try await call() } }
    }

    /// Runs `operation`, whose server call is the closure it is given: the call says it started,
    /// waits for ``refuse()``, and fails.
    private init(
        _ operation: @escaping @Sendable (_ call: @escaping @Sendable () async throws -> Void) async throws -> Void
    ) async {
        let (held, answer) = AsyncStream.makeStream(of: Void.self)
        let (started, start) = AsyncStream.makeStream(of: Void.self)
        editing = Task {
            try await operation {
                start.yield()
                for await _ in held { break }
                throw Refused()
            }
        }
        self.answer = answer
        for await _ in started { break }
    }

    /// Lets the call fail, and waits until the edit has settled.
    func refuse() async {
        answer.finish()
        _ = try? await editing.value
    }
}
