import ArgumentParser
import Foundation
import PagedStore
import PagedStoreFixtures

/// `--format` of `seed`: a typed fixture shape.
enum FixtureFormatOption: String, ExpressibleByArgument, CaseIterable {
    case json, ndjson, pages, page

    /// The reader's format.
    var format: FixtureFormat {
        switch self {
        case .json: .json
        case .ndjson: .ndjson
        case .pages: .pages
        case .page: .page
        }
    }
}

/// Fixture files as the commands meet them.
enum FixtureFile {
    /// Fails with the missing-file status (66) when `path` does not exist, before anything is read.
    static func checkExists(_ path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CommandFailure(status: .missingFile, message: "No file at \(Terminal.escape(path))")
        }
        if isDirectory.boolValue {
            throw CommandFailure(status: .missingFile, message: "\(Terminal.escape(path)) is a folder, not a file")
        }
    }

    /// The page with each item's JSON in canonical form (sorted keys, no escaped slashes), the form
    /// every fixture item is stored in: written in one pass (``CanonicalJSON``), or by Foundation for
    /// an item that writer is not sure of. Foundation's path took most of a generated seed's time.
    static func canonical(_ page: FixturePage) -> FixturePage {
        var page = page
        var writer = CanonicalJSON(idKey: "id")
        page.items = page.items.map { item in
            var item = item
            let written = item.json.withUnsafeBytes { bytes in writer.write(bytes, 0..<bytes.count) }
            if written {
                item.json = Data(writer.output)
            } else if let object = try? JSONSerialization.jsonObject(with: item.json),
                let json = try? JSONSerialization.data(
                    withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
            {
                item.json = json
            }
            return item
        }
        return page
    }
}
