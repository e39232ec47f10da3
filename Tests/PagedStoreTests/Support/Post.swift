import PagedStore

/// The test item: an id, a revision that changes its payload, and an optional section.
struct Post: FeedItem, Codable, Equatable, Hashable {
    let id: String
    var revision: Int = 0
    var section: String? = nil

    var sectionKey: String? { section }
}

extension Array where Element == Post {
    /// Posts `prefix0`, `prefix1`, ….
    static func posts(_ prefix: String, _ count: Int, section: String? = nil) -> [Post] {
        (0..<count).map { Post(id: "\(prefix)\($0)", section: section) }
    }
}
