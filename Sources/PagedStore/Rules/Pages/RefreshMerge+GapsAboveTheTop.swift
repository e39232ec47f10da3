extension RefreshMerge {
    /// A row whose removal waits, at the position it had when removed.
    struct WaitingRemoval: Equatable {
        var itemID: String
        var position: Int64
    }

    /// Of the gaps above the cached top row (their places), those a page written on top without
    /// overlap went past: it lists every item whose removal waits above the gap (the rows the gap
    /// hangs under), so it reached the gap's rows, and its own gap below it continues them. A gap
    /// with none of those items listed, or none above it, stays: the page says nothing of what
    /// lies between its end and those rows.
    static func gapsThePageWentPast(
        _ places: [Int64], waiting: [WaitingRemoval], listed: Set<String>
    ) -> [Int64] {
        places.filter { place in
            let above = waiting.filter { $0.position <= place }
            return !above.isEmpty && above.allSatisfy { listed.contains($0.itemID) }
        }
    }
}
