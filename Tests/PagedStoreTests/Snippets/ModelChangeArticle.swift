import Foundation
import PagedStore

// The code of the section "When your model changes" of the article "Offline first and freshness",
// compiled: DocumentationSnippetTests checks that every Swift block of the article is here,
// character for character.

// Article: begin optional field
struct Comment: FeedItem, Codable {
    let id: String
    let text: String
    var likes: Int?
}
// Article: end

// Article: begin custom init
struct Article: FeedItem, Codable {
    let id: String
    let headline: String
    var likes: Int

    enum CodingKeys: String, CodingKey { case id, headline, title, likes }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        headline =
            try container.decodeIfPresent(String.self, forKey: .headline)
            ?? container.decode(String.self, forKey: .title)
        likes = try container.decodeIfPresent(Int.self, forKey: .likes) ?? 0
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(headline, forKey: .headline)
        try container.encode(likes, forKey: .likes)
    }
}
// Article: end

// Article: begin version bump
func openHome(_ store: FeedStore, source: some PageSource<Article>) throws -> Feed<Article> {
    try store.feed("home", source: source, policy: FeedPolicy(cacheVersion: 2))
}
// Article: end
