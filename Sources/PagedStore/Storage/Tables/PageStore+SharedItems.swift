package import Foundation

extension PageStore {
    /// The bit of `item.flags` that marks a row of a feed that shares its items: such rows are in
    /// the index by id (`item_shared_by_id`).
    static let sharedFlag: Int64 = 2
}

/// The pending edits of the feeds sharing one name, as a spread needs them.
package struct PendingSharedEdits {
    /// The pending updates by item: what the newest shows, the feeds that made them, and the feed
    /// that made the newest.
    package var updates: [String: (edited: Data, feeds: Set<Int64>, newest: Int64)] = [:]
    /// The items some feed's pending removal puts back on a rollback, with those feeds.
    package var removals: [String: Set<Int64>] = [:]

    /// One feed's edits of one item.
    struct Stack: Hashable {
        var itemID: String
        var feedID: Int64
    }
}

/// A row holding a copy of a shared item, in a feed other than the one writing it.
package struct SharedCopyHolder: Sendable, Equatable {
    /// The feed holding it.
    package var feedID: Int64
    /// The row's position in that feed.
    package var position: Int64
    /// The kind of the feed's pending edit of the item, if it has one.
    package var pendingEdit: PendingEditRecord.Kind?

    /// Describes a row holding a copy.
    package init(feedID: Int64, position: Int64, pendingEdit: PendingEditRecord.Kind? = nil) {
        self.feedID = feedID
        self.position = position
        self.pendingEdit = pendingEdit
    }
}

/// One item in many feeds: the rows of feeds whose items share a name (``FeedItem/sharedItemType``),
/// found by the item's id through the partial index `item_shared_by_id`.
extension PageStore {
    /// Records the name the feed's items are shared under (nil: its own), in `feed` too. When it
    /// changes, the feed's rows join the index by id, or leave it, and a searchable feed's documents
    /// leave their old owner: its rows wait to be indexed under the new one (its search backlog).
    /// - Returns: Whether the name changed.
    package func setSharedType(_ type: String?, of feed: inout FeedRecord) throws(StorageError) -> Bool {
        guard feed.sharedType != type else { return false }
        searchablePeersInThisWrite = [:]
        try unindexRows(of: feed)
        try connection.run("UPDATE feed SET shared_type = ? WHERE id = ?", type, feed.id)
        let flags = type == nil ? "flags & ~2" : "flags | 2"
        try connection.run("UPDATE item SET flags = \(flags) WHERE feed_id = ?", feed.id)
        feed.sharedType = type
        if feed.searchFields != nil { try setSearchBacklog(feed.topPosition, of: &feed) }
        return true
    }

    /// How the feed shares its items, for `pagedb`: the name, and how many of its rows other feeds
    /// of the name hold too. Nil for a feed whose items are its own.
    package func sharing(of feed: FeedRecord) throws(StorageError) -> (type: String, sharedRows: Int)? {
        guard let type = feed.sharedType else { return nil }
        let shared = try connection.integer(
            """
            SELECT count(*) FROM item AS mine WHERE mine.feed_id = ?1 AND EXISTS (
            SELECT 1 FROM item AS other JOIN feed ON feed.id = other.feed_id WHERE other.item_id = mine.item_id
            AND other.flags & 2 AND other.feed_id != ?1 AND feed.shared_type = ?2)
            """, feed.id, type)
        return (type, Int(shared ?? 0))
    }

    /// Whether a feed other than `feedID` shares its items as `type` (with `searchable`, one whose
    /// type declares searchable fields): when none does, no item of a write has another holder, and
    /// a page's copies (or their search documents) need no look-up each.
    package func hasOtherFeeds(
        sharedAs type: String, except feedID: Int64, searchable: Bool = false
    ) throws(StorageError) -> Bool {
        try connection.integer(
            "SELECT EXISTS (SELECT 1 FROM feed WHERE shared_type = ? AND id != ? AND (NOT ? OR search_fields IS NOT NULL))",
            type, feedID, searchable) == 1
    }

    /// The rows of other feeds sharing their items as `type` that hold the item `itemID`.
    package func sharedHolders(
        of itemID: String, sharedAs type: String, except feedID: Int64
    ) throws(StorageError) -> [SharedCopyHolder] {
        // The partial index is used only when the query says its condition (flags & 2).
        let sql = """
            SELECT item.feed_id, item.position, edit.kind
            FROM item JOIN feed ON feed.id = item.feed_id
            LEFT JOIN pending_edit AS edit ON edit.feed_id = item.feed_id AND edit.item_id = item.item_id
                AND edit.detached = 0 AND edit.step = (SELECT min(step) FROM pending_edit AS first
                    WHERE first.feed_id = item.feed_id AND first.item_id = item.item_id AND first.detached = 0)
            WHERE item.item_id = ?1 AND item.flags & 2 AND feed.shared_type = ?2 AND item.feed_id != ?3
            """
        return try connection.withStatement(sql) { statement throws(StorageError) in
            try statement.bind(1, itemID)
            try statement.bind(2, type)
            try statement.bind(3, feedID)
            var holders: [SharedCopyHolder] = []
            while try statement.step() {
                holders.append(
                    SharedCopyHolder(
                        feedID: statement.int64(0), position: statement.int64(1),
                        pendingEdit: statement.string(2).flatMap(PendingEditRecord.Kind.init(rawValue:))))
            }
            return holders
        }
    }

    /// The server's copy of `itemID` that the feeds other than `feedID` sharing `type` hold: the base
    /// of a pending update of it (their rows show the update), else a row with no edit of it pending.
    /// Nil when no other feed holds the item but as its own insert.
    package func serverCopy(
        of itemID: String, sharedAs type: String, except feedID: Int64
    ) throws(StorageError) -> EncodedItem? {
        let holders = try sharedHolders(of: itemID, sharedAs: type, except: feedID)
        for holder in holders where holder.pendingEdit == .update {
            guard let other = try feed(id: holder.feedID),
                let first = try pendingEdits(ofItem: itemID, in: other).first,
                let base = first.base
            else { continue }
            return EncodedItem(itemID: itemID, section: first.baseSection, payload: base)
        }
        for holder in holders where holder.pendingEdit == nil {
            guard let other = try feed(id: holder.feedID), let row = try items(withIDs: [itemID], in: other)[itemID]
            else { continue }
            return EncodedItem(itemID: itemID, section: row.section, payload: row.payload)
        }
        return nil
    }

    /// The feeds sharing their items as `type` that hold `itemID`.
    package func feedsHolding(_ itemID: String, sharedAs type: String) throws(StorageError) -> [FeedRecord] {
        var found: [FeedRecord] = []
        for holder in try sharedHolders(of: itemID, sharedAs: type, except: -1) {
            if let feed = try feed(id: holder.feedID) { found.append(feed) }
        }
        return found
    }

    /// Makes the feed's row of `itemID` show `payload`, unless it holds the same payload and section
    /// already. With `position`, the row there (found by the position index), otherwise the feed's
    /// row of that id.
    /// - Returns: Whether the row changed (its list shows a reload).
    package func replaceSharedCopy(
        _ itemID: String, showing payload: Data, section: String?, in feedID: Int64, at position: Int64? = nil
    ) throws(StorageError) -> Bool {
        let row = position == nil ? "item_id = ?5" : "position = ?4 AND item_id = ?5"
        let sql = """
            UPDATE item SET payload = ?1, section = ?2
            WHERE feed_id = ?3 AND \(row) AND (payload IS NOT ?1 OR section IS NOT ?2)
            """
        let changed = try connection.withStatement(sql) { statement throws(StorageError) in
            try statement.bind(1, payload, asText: textPayloads)
            try statement.bind(2, section)
            try statement.bind(3, feedID)
            if let position { try statement.bind(4, position) }
            try statement.bind(5, itemID)
            try statement.step()
            return connection.changes > 0
        }
        // The item's one document shows the copy written last, as its rows now do.
        if changed, let feed = try feed(id: feedID) {
            try indexForSearch(itemID, payload: payload, in: feed)
        }
        return changed
    }

    /// The pending optimistic edits of the feeds sharing their items as `type` that a copy meets:
    /// one read per write that spreads, since `pending_edit` has no index by item and is nearly
    /// always empty. The edits of a stack its feed keeps to itself (see
    /// ``SharedCopyRule/keepsItsOwnCopy(stackStartingWith:)``) are left out.
    package func pendingSharedEdits(sharedAs type: String) throws(StorageError) -> PendingSharedEdits {
        let rows = try connection.rows(
            """
            SELECT edit.item_id, edit.feed_id, edit.kind, edit.edited, edit.step FROM pending_edit AS edit
            WHERE edit.detached = 0
            AND EXISTS (SELECT 1 FROM feed WHERE feed.id = edit.feed_id AND feed.shared_type = ?)
            ORDER BY edit.created_at, edit.step
            """, type
        ) {
            (
                $0.string(0) ?? "", $0.int64(1), PendingEditRecord.Kind(rawValue: $0.string(2) ?? ""), $0.data(3),
                $0.int64(4)
            )
        }
        var firsts: [PendingSharedEdits.Stack: (step: Int64, kind: PendingEditRecord.Kind)] = [:]
        for (itemID, feedID, kind, _, step) in rows {
            guard let kind else { continue }
            let stack = PendingSharedEdits.Stack(itemID: itemID, feedID: feedID)
            if let first = firsts[stack], first.step < step { continue }
            firsts[stack] = (step, kind)
        }
        var pending = PendingSharedEdits()
        for (itemID, feedID, kind, edited, _) in rows {
            guard let first = firsts[PendingSharedEdits.Stack(itemID: itemID, feedID: feedID)],
                !SharedCopyRule.keepsItsOwnCopy(stackStartingWith: first.kind)
            else { continue }
            switch kind {
            case .remove?:
                pending.removals[itemID, default: []].insert(feedID)
            case .update?:
                guard let edited else { continue }
                pending.updates[itemID, default: (edited, [], feedID)].edited = edited
                pending.updates[itemID]?.feeds.insert(feedID)
                pending.updates[itemID]?.newest = feedID
            case .insert?, nil:
                continue
            }
        }
        return pending
    }

    /// Makes `copy` what the pending removals of the item in `feeds` put back on a rollback: those
    /// feeds have no row of the item, so no holder names them.
    package func replacePendingRemovalBases(_ copy: EncodedItem, inFeeds feeds: Set<Int64>) throws(StorageError) {
        for feedID in feeds.sorted() {
            try connection.run(
                """
                UPDATE pending_edit SET base = ?, base_section = ?
                WHERE feed_id = ? AND item_id = ? AND kind = 'remove' AND detached = 0
                """, payload(copy.payload), copy.section, feedID, copy.itemID)
        }
    }

    /// Leaves the pending removals of the item, in the feeds sharing `type`, no place to put it back:
    /// the item was removed from every feed, and a rollback of one of them must not bring it back.
    /// Each names the item itself as the rows around it, which are gone, as after a list was
    /// replaced: a rollback leaves it to the pages that list it. The edits stay (a queued one is
    /// still sent).
    package func forgetPendingRemovalPlaces(of itemID: String, sharedAs type: String) throws(StorageError) {
        try connection.run(
            """
            UPDATE pending_edit SET above_id = item_id, below_id = item_id WHERE item_id = ? AND kind = 'remove'
            AND detached = 0 AND EXISTS (SELECT 1 FROM feed WHERE feed.id = pending_edit.feed_id AND feed.shared_type = ?)
            """, itemID, type)
    }

    /// The feed with row id `id`, or nil when the cache has none.
    package func feed(id: Int64) throws(StorageError) -> FeedRecord? {
        try connection.withStatement(Self.feedByIDSQL) { statement throws(StorageError) in
            try statement.bind(1, id)
            return try statement.step() ? Self.feedRecord(statement) : nil
        }
    }
}
