import Foundation

/// Records every snapshot a live list emits, in order: a search of the cache
/// (`StreamRecorder(await list.snapshots)`) or a search feed (`await search.snapshots`).
public final class StreamRecorder<Snapshot: Sendable>: Sendable {
    private let recorded: RecordedStream<Snapshot>

    /// Starts recording `snapshots`, from the first it brings (the list's current one).
    public init(_ snapshots: AsyncStream<Snapshot>) {
        recorded = RecordedStream(snapshots)
    }

    /// The snapshots so far, once the last of them satisfies `ready` (or the stream ended).
    public func snapshots(once ready: @escaping @Sendable (Snapshot) -> Bool) async -> [Snapshot] {
        await recorded.elements { $0.last.map(ready) ?? false }
    }
}
