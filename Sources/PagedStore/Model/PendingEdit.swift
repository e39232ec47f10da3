public import Foundation

/// An optimistic edit whose server call has not answered yet, as ``Feed/pendingEdits()`` lists it.
///
/// Pending edits are stored in the cache: after a relaunch (the call's outcome unknown), the edited
/// value still shows, refreshes keep it on top of the server's value, and the app settles each one
/// with ``Feed/settlePendingEdit(itemID:committed:)``.
public struct PendingEdit: Sendable, Equatable {
    /// What an edit does to its row.
    public enum Kind: String, Sendable, Equatable {
        /// The item changed in place (``Feed/edit(id:_:commit:)``).
        case update
        /// The item was inserted (``Feed/insert(_:at:commit:)``).
        case insert
        /// The item was removed (``Feed/remove(id:commit:)``).
        case remove
    }

    /// The item's id, as ``FeedItem/storedID`` gives it.
    public let itemID: String
    /// What the edit does.
    public let kind: Kind
    /// When the edit was made.
    public let createdAt: Date

    /// Creates the description of a pending edit.
    public init(itemID: String, kind: Kind, createdAt: Date) {
        self.itemID = itemID
        self.kind = kind
        self.createdAt = createdAt
    }
}
