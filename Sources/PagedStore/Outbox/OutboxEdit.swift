public import Foundation

/// A queued edit as its handler receives it: the item, the argument the edit was made with, and
/// the idempotency key to pass to the server.
public struct OutboxEdit<Argument: Sendable>: Sendable {
    /// The key of the feed the edit changed.
    public let feedKey: String
    /// The item's id, as ``FeedItem/storedID`` gives it.
    public let itemID: String
    /// What the edit did to the item's row.
    public let change: PendingEdit.Kind
    /// The argument the edit was made with (see ``Feed/enqueue(_:id:argument:_:)``).
    public let argument: Argument
    /// Made once with the edit and the same on every send, also after a relaunch: a server that
    /// applies each key once applies the edit once, however often it is sent.
    public let idempotencyKey: UUID
    /// Which send this is: 1 for the first, more after failures.
    public let attempt: Int
}

/// A queued edit as the outbox's observers see it (see ``Outbox/states``).
public struct OutboxEditState: Sendable, Equatable, Identifiable {
    /// Where an edit stands.
    public enum Phase: Sendable, Equatable {
        /// Waiting for its turn: a handler for its kind, or an earlier edit of its item.
        case waiting
        /// Its handler runs, or its outcome is being written.
        case sending
        /// A send failed; it goes again after its delay, or on ``Outbox/resume()``.
        case retryingLater
    }

    /// The edit's idempotency key, which identifies it.
    public var id: UUID { idempotencyKey }
    /// The key of the feed the edit changed.
    public let feedKey: String
    /// The item's id, as ``FeedItem/storedID`` gives it.
    public let itemID: String
    /// The kind the edit was made with, whose handler sends it.
    public let kind: String
    /// What the edit did to the item's row.
    public let change: PendingEdit.Kind
    /// The key the server applies the edit once by.
    public let idempotencyKey: UUID
    /// When the edit was made.
    public let createdAt: Date
    /// How many sends failed.
    public let attempts: Int
    /// What the last failed send said.
    public let lastError: String?
    /// Where it stands.
    public let phase: Phase
}

/// The outbox at one moment: every queued edit of the store, oldest first.
public struct OutboxStatus: Sendable, Equatable {
    /// The queued edits, oldest first.
    public let edits: [OutboxEditState]
    /// How many edits wait to reach their server: the "3 changes waiting to sync" of a badge.
    public var count: Int { edits.count }
}
