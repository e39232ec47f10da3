/// The rule for rows the codec cannot decode that a follow of another writer's write finds in the
/// window (see ``UndecodableRow``). A writable list never counts a row it cannot show, so it takes
/// the write only without them; the follow itself only reads, so who removes them, and when, depends
/// on who asked. Pure: ``Feed/followFile(mayWrite:wholeWindow:)`` carries it out.
enum UndecodableFollowRule {
    /// What a follow does with such rows.
    enum Plan: Equatable {
        /// The window stops above the first of them and the row count keeps them, as it keeps any
        /// row not loaded: a read-only store never removes a row.
        case stopWindowAbove
        /// The follow's commit reads the window again and the feed removes them in the same change:
        /// the feed's own read or write asked to look at the file, and may write.
        case removeInTheChange
        /// The feed removes them first, with a write of its own through its writer, and then follows
        /// the file as it is after that write: an observed list must show another writer's write
        /// without waiting for the app to read or write, and a removal that fails leaves the list as
        /// it was, for the next nudge or read to try again.
        case removeThenFollow
        /// Nothing is taken yet: the feed's next read or write follows, and removes them. Nobody
        /// looks at a list that is not observed, and a write in answer to another writer's by a
        /// list nobody looks at would be a write nobody asked for.
        case leaveForLater
    }

    /// What a follow does with rows it cannot decode.
    /// - Parameters:
    ///   - readOnly: Whether the feed's store is read-only.
    ///   - callerMayWrite: Whether the follow runs for the feed's own read or write, not a nudge.
    ///   - observed: Whether anyone follows the feed's snapshots.
    static func plan(readOnly: Bool, callerMayWrite: Bool, observed: Bool) -> Plan {
        if readOnly { return .stopWindowAbove }
        if callerMayWrite { return .removeInTheChange }
        return observed ? .removeThenFollow : .leaveForLater
    }
}
