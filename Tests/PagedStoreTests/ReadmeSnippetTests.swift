import Foundation
import TestSupport
import Testing

/// The README's examples that the tests compile (in `Snippets/`) are the README's text, exactly.
@Suite(.limit(minutes: 3)) struct ReadmeSnippetTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The lines between `// README: begin NAME` and `// README: end NAME` in `file`.
    static func snippet(_ name: String, in file: String) throws -> String {
        let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
        let lines = text.components(separatedBy: "\n")
        guard let begin = lines.firstIndex(of: "// README: begin \(name)"),
            let end = lines.firstIndex(of: "// README: end \(name)"), begin < end
        else { throw CocoaError(.fileReadCorruptFile) }
        return lines[(begin + 1)..<end].joined(separator: "\n")
    }

    @Test func theSwiftUIExampleIsTheCompiledOne() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let compiled = try Self.snippet("SwiftUI", in: "Tests/PagedStoreTests/Snippets/ReadmeSwiftUI.swift")
        #expect(
            readme.contains("```swift\n" + compiled + "\n```"),
            "the README's SwiftUI example differs from the compiled one")
    }
}
