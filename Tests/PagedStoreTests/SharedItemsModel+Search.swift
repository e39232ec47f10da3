import Foundation
import PagedStoreFixtures
import TestSupport
import Testing

@testable import PagedStore

/// The shared items' model's check of search: the posts' words (their id and revision, see
/// ``SharedPost/words``) found through the index equal a plain scan of the rows the lists show.
extension SharedItemsModel {
    /// For two words of the rows (all feeds, or one), search finds each post some row of a feed
    /// searched shows the word in, once, and each match shows such a row. Its picks come from a
    /// generator of their own, so that the sequence of steps is the one without the check.
    mutating func checkSearch(_ file: [String: [SharedPost]], _ context: String) throws {
        let posts = file.values.flatMap { $0 }
        for _ in 0..<2 {
            guard let post = posts.randomElement(using: &searchRandom) else { return }
            let word = Bool.random(using: &searchRandom) ? post.id : "r\(post.revision)"
            let scope = Bool.random(using: &searchRandom) ? nil : keys.randomElement(using: &searchRandom).map { [$0] }
            let context = "\(context), search \(word) in \(scope ?? keys)"
            let shown = (scope ?? keys).flatMap { file[$0, default: []] }.filter { Self.shows(word, $0) }
            let matches = try reader.read { try CachedSearch.find(word + " ", in: $0, feeds: scope, limit: 10_000) }
            let found = matches.map(\.id)
            expect(found.count == Set(found).count, "\(context): a post found twice \(found)")
            expect(
                Set(found) == Set(shown.map(\.id)),
                "\(context): found \(found.sorted()), the rows show it in \(Set(shown.map(\.id)).sorted())")
            for match in matches {
                let post = try? JSONDecoder().decode(SharedPost.self, from: match.item.payload)
                expect(
                    post.map { Self.shows(word, $0) } ?? false && (scope ?? keys).contains(match.feedKey),
                    "\(context): \(match.id) shows \(match.feedKey)'s row \(String(describing: post))")
            }
        }
    }

    /// Whether `post`'s words hold `word` as a whole word.
    static func shows(_ word: String, _ post: SharedPost) -> Bool {
        post.words.split(separator: " ").contains { $0 == word }
    }
}
