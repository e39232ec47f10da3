import PagedStore

extension DatabaseQueue {
    /// What is wrong with the row indexes of the feed `key`, asked in a write (which may make its page
    /// groups): rows whose index is not the count of the rows above them, groups that differ from
    /// their pages, and what `verify` finds. Empty for a sound file.
    package func rowIndexProblems(ofFeed key: String = "home") throws -> [String] {
        var problems = try write { store -> [String] in
            guard let feed = try store.feed(key: key) else { return ["no feed \(key)"] }
            let rows = try store.window(of: feed, from: .top, limit: Int.max)
            var problems: [String] = []
            if rows.count != feed.rowCount { problems.append("\(rows.count) rows, the feed counts \(feed.rowCount)") }
            var wrong: [Int] = []
            for (index, row) in rows.enumerated() where try store.rowIndex(ofPosition: row.position, in: feed) != index
            {
                wrong.append(index)
            }
            if let first = wrong.first {
                problems.append("\(wrong.count) of \(rows.count) rows have a wrong index, first \(first)")
            }
            let groups = try store.pageGroupDifferences()
            if groups > 0 { problems.append("\(groups) groups differ from their pages") }
            return problems
        }
        problems += try read { store in try store.verify() }.map(\.description)
        return problems
    }
}
