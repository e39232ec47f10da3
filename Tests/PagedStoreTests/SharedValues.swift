/// What the lists of one shared item type must show, as a reference model: the value of the last
/// write of each id, in whichever feed it was written, and each feed's own values (an optimistic
/// edit that committed stays that feed's, until the next write of the item anywhere).
struct SharedValues {
    /// The revision of the last write of each id (a server page that inserted the item or changed
    /// its payload, a local update or insert).
    private(set) var latest: [String: Int] = [:]
    /// Each feed's own revisions, by feed key then id.
    private(set) var own: [String: [String: Int]] = [:]

    /// The writes of a feed's rows from `before` to `after`: every item it inserted, and every item
    /// whose payload changed. A row the write left as it was is not written, so it spreads nothing.
    static func writes(from before: [SharedPost], to after: [SharedPost]) -> [SharedPost] {
        let old = Dictionary(before.map { ($0.id, $0.revision) }, uniquingKeysWith: { first, _ in first })
        return after.filter { old[$0.id] != $0.revision }
    }

    /// `item` was written in some feed: every feed holding its id shows it, own values included.
    mutating func wrote(_ item: SharedPost) {
        latest[item.id] = item.revision
        for key in own.keys { own[key]?[item.id] = nil }
    }

    /// The feed `key` shows `revision` of `id` as its own (a committed optimistic edit), or, with
    /// nil, shows the item's last written value again.
    mutating func setOwn(_ revision: Int?, of id: String, in key: String) {
        own[key, default: [:]][id] = revision
    }

    /// The revision the feed `key` shows for `id` when nothing but writes changed it.
    func shown(_ id: String, in key: String) -> Int? {
        own[key]?[id] ?? latest[id]
    }

    /// Checks the rows of the feed `key`; returns what is wrong, one line per row.
    ///
    /// A row shows the item's last written value, or its feed's own value. A feed's own value may
    /// also give way to the last written one: a write that stored a row again with the value it had
    /// (a refresh that starts the list again) spreads it, though the model sees no change there.
    mutating func check(_ rows: [SharedPost], of key: String) -> [String] {
        var wrong: [String] = []
        for row in rows {
            let last = latest[row.id]
            if let mine = own[key]?[row.id] {
                if row.revision == last {
                    own[key]?[row.id] = nil
                } else if row.revision != mine {
                    wrong.append(
                        "\(row.id) at \(row.revision), neither its own \(mine) nor the last written \(last ?? -1)")
                }
            } else if let last {
                if row.revision != last { wrong.append("\(row.id) at \(row.revision), not the last written \(last)") }
            } else {
                wrong.append("\(row.id) at \(row.revision), a value nothing wrote")
            }
        }
        return wrong
    }
}
