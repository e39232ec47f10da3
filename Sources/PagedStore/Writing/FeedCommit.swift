import Foundation

/// What one write of a feed did, as ``FeedWriter`` returns it: the feed's row after the write, the
/// change to the rows (from which the snapshot's change set is built), and how the rows held in
/// memory follow.
struct FeedCommit<Item: FeedItem> {
    /// How a commit changes the rows held in memory.
    enum WindowUpdate {
        /// Rows appended at the bottom of a feed that had `oldCount` rows.
        case append(LoadedRows<Item>, oldCount: Int)
        /// Rows inserted on top, and rows of the old head whose item changed (old row numbers).
        case prepend(LoadedRows<Item>, reloads: [(row: Int, item: Item, key: RowKey)])
        /// Anything else: read the window again from the cache.
        case reload
        /// The window as read from `start` in the same read as the commit's record (a write another
        /// feed made, followed): no later write can slip between the row and its rows.
        case read(LoadedRows<Item>, start: Int)
    }

    /// The feed's row as the write left it.
    var record: FeedRecord
    /// The rows changed, as indices of the rows before and after the write.
    var change: RowChange
    var window: WindowUpdate
    /// Whether the file held another `Feed`'s write when this commit was made: the change was
    /// computed on the file's rows, so it becomes one full reload (see ``overForeignWrite()``).
    var adoptsFile = false
    /// Rows met while writing that the codec cannot decode, for ``Feed/apply(_:)`` to remove.
    var undecodable: [UndecodableRow] = []
    /// The items' new copies the write stored, which the other feeds holding them take too when
    /// the feed shares its items (``SharedItemSpread``): a server page's rows, a local or
    /// optimistic update, a rollback's server copy. Rows that stay the feed's own (an optimistic
    /// insert or removal, a pending edit re-applied) are not among them.
    var copies: [EncodedItem] = []
    /// What the write changed of other feeds besides the copies it spread: a detached edit's
    /// settlement restoring the copies it showed (see ``EditSettlement``). Recorded with the write.
    var otherFeeds: [RecordedWrite] = []
    /// For a next page that held only rows the feed has: the older cursor it moved on to, with no
    /// row written (progress on a page-numbered list that shifted down).
    var advancedCursor: String?
    /// The one item whose row the write touched, when it knows (a settlement): only that item's
    /// pending edits are applied again after it. Nil: every item's (a page may write any row).
    var onlyItem: String?
    /// Whether pending edits were re-applied on top of what the plan wrote.
    var replayedEdits = false
    /// For a refresh: its first page, as written. A page that lists both rows a pending removal named
    /// and its item elsewhere proves the removal's place wrong, and the item it brings back takes its
    /// new place (see ``PendingEditReplay/placeDisproved(byFirstPage:item:above:below:)``). Kept as the
    /// page itself: its ids are read only when the page brings back a removed item.
    var refreshedPage: [EncodedItem]?
    /// Hidden items a page listed as moved up (``NewerPageRule/Plan/hiddenOnTop``): a removal of one
    /// takes the place the page gave it, whatever its old place says.
    var movedUp: Set<String> = []
    /// Hidden items among `movedUp` that a page listed as bumped (``NewerPageRule/Plan/hiddenBumped``):
    /// the places they left go to the removals that named them.
    var leftTheirPlaces: Set<String> = []
    /// For a commit that takes another writer's write from the file: what the change record says of
    /// it. ``Feed/apply(_:)`` reports it once the change is checked against the rows, so that an
    /// event counts only a change the list applied.
    var followed: FollowedWrite?
    /// The file's ``DatabaseQueue/WriteMark`` as this feed's write left it: once the feed applied
    /// the commit, it holds the file as it was then, and its next look at the file
    /// (``Feed/syncWithFile(mayWrite:)``) reads nothing unless someone wrote since. Nil for a
    /// commit that follows another writer (its look sets the mark).
    var writeMark: DatabaseQueue.WriteMark?

    /// Whether the write moved only the feed's row (a cursor): it changed no row, not even by a full
    /// reload, took no other writer's write, applied no pending edit again and met no undecodable
    /// row. Such a commit has nothing to show; any other is applied, or the list keeps rows the file
    /// no longer has and the next change it emits is of rows it does not show.
    var movesOnlyTheRecord: Bool {
        change == RowChange() && !adoptsFile && !replayedEdits && undecodable.isEmpty
    }

    /// Another writer's write as a list takes it from the file.
    enum FollowedWrite {
        /// The exact change the file's change record holds for it.
        case recorded(RowChange)
        /// The feed's rows whole: the record does not cover the write, or contradicts the rows;
        /// `reason` says which, for the event (``FeedEvent/reason``).
        case whole(reason: String)

        /// The write for a change from ``ChangeChain`` from the row `held` to the row `file`: nil
        /// when the record does not cover it.
        init(_ change: RowChange?, from held: FeedRecord, to file: FeedRecord) {
            self = change.map(Self.recorded) ?? .whole(reason: Self.notRecorded(from: held, to: file))
        }

        /// Why the record did not cover the way from `held` to `file`, in words.
        static func notRecorded(from held: FeedRecord, to file: FeedRecord) -> String {
            if held.id != file.id { return "the feed was deleted and made again" }
            if held.changeCount == file.changeCount {
                return "the feed's row changed without its change count (\(held.changeCount)): "
                    + "a writer that does not record"
            }
            return "the change record does not hold every write from change \(held.changeCount) "
                + "(\(held.rowCount) rows) to change \(file.changeCount) (\(file.rowCount) rows)"
        }

        /// Why a recorded change was not taken: it does not turn the rows shown into the file's.
        static var contradictsRows: String { "the recorded change does not turn the rows shown into the file's rows" }

        /// Why a recorded change was not taken: it does not follow on from the feed's own write.
        static var notComposed: String { "the recorded change does not follow on from this feed's own write" }
    }

    /// A commit that changed the feed's row and no row of its list.
    static func unchangedRows(_ record: FeedRecord) -> Self {
        FeedCommit(record: record, change: RowChange(), window: .prepend(LoadedRows(), reloads: []))
    }

    /// The commit as one full reload taken from the file, after another `Feed` wrote the feed: the
    /// feed adopts the file's generation, and reads the pending edits from the file, whoever made them.
    func overForeignWrite() -> Self {
        var commit = self
        commit.change = .fullReload
        commit.window = .reload
        commit.adoptsFile = true
        return commit
    }
}
