import PagedStore

/// The test item: an id, a revision that changes its payload, and an optional section.
struct Post: FeedItem, Codable, Equatable, Hashable {
    /// Whether posts declare searchable fields (their id and section) in the task that opens their
    /// feeds: the reference model searches in half of its sequences, and every other test's posts
    /// pay nothing for search.
    @TaskLocal static var isSearchable = false
    static var searchableFields: [String] { isSearchable ? ["id", "section"] : [] }

    let id: String
    var revision: Int = 0
    var section: String? = nil

    var sectionKey: String? { section }
}

/// A post as a smaller model reads it (a widget's, an older version of the app's): no section. Its
/// edits must keep the section of the rows it edits, in the payload and in the feed.
struct PostWithoutSection: FeedItem, Codable, Equatable {
    let id: String
    var revision: Int = 0
}

extension Array where Element == Post {
    /// Posts `prefix0`, `prefix1`, ….
    static func posts(_ prefix: String, _ count: Int, section: String? = nil) -> [Post] {
        (0..<count).map { Post(id: "\(prefix)\($0)", section: section) }
    }
}
