import Foundation
import TestSupport
import Testing

/// Every Swift block of the UIKit, SwiftUI, offline-first, extensions, offline edits, sharing and search articles is code
/// the tests compile (in `Snippets/`).
@Suite(.limit(minutes: 3)) struct DocumentationSnippetTests {
    static let catalog = ReadmeSnippetTests.root.appendingPathComponent("Sources/PagedStore/PagedStore.docc")
    static let snippets = ReadmeSnippetTests.root.appendingPathComponent("Tests/PagedStoreTests/Snippets")

    @Test(arguments: [
        "UsingPagedStoreWithUIKit.md", "UsingPagedStoreWithSwiftUI.md", "OfflineFirst.md",
        "SharingACacheWithExtensions.md", "OfflineEdits.md", "SharingItemsAcrossFeeds.md", "SearchingTheCache.md",
    ])
    func everyExampleIsCompiled(article: String) throws {
        let text = try String(contentsOf: Self.catalog.appendingPathComponent(article), encoding: .utf8)
        let compiled = try FileManager.default.contentsOfDirectory(atPath: Self.snippets.path).sorted()
            .map { try String(contentsOf: Self.snippets.appendingPathComponent($0), encoding: .utf8) }
            .joined(separator: "\n")
        let blocks = text.components(separatedBy: "```swift\n").dropFirst()
            .compactMap { $0.components(separatedBy: "\n```").first }
        #expect(!blocks.isEmpty)
        for block in blocks {
            #expect(compiled.contains(block + "\n"), "\(article): an example the tests do not compile:\n\(block)")
        }
    }
}
