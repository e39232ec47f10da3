import Foundation

/// Turning a response body into a page: the convention's shape, then each item.
extension HTTPPageSource {
    func page(from data: Data, links: String?, request: PageRequest) throws -> Page<Item> {
        let body: Any
        do {
            body = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw HTTPSourceError.invalidResponse("the body is not JSON")
        }
        switch convention {
        case .linkHeader:
            guard let array = body as? [Any] else {
                throw HTTPSourceError.invalidResponse("the body is not a JSON array of items")
            }
            let relations = links.map(LinkHeader.relations) ?? [:]
            return Page(
                items: try decode(array, request: request), olderCursor: relations["next"],
                newerCursor: relations["prev"] ?? relations["previous"])
        case .jsonBody(let itemsPath, let olderPath, let newerPath, _, _):
            guard let array = Self.value(at: itemsPath, in: body) as? [Any] else {
                throw HTTPSourceError.invalidResponse("no array of items at \"\(itemsPath)\"")
            }
            return Page(
                items: try decode(array, request: request), olderCursor: try Self.cursor(at: olderPath, in: body),
                newerCursor: try newerPath.flatMap { try Self.cursor(at: $0, in: body) })
        }
    }

    /// Each element decoded on its own, so one bad item names its index (or is skipped, if the
    /// options say so) instead of failing with the whole array.
    private func decode(_ array: [Any], request: PageRequest) throws -> [Item] {
        var items: [Item] = []
        items.reserveCapacity(array.count)
        var skipped = 0
        for (index, element) in array.enumerated() {
            do {
                items.append(try decodeOne(element, index: index))
            } catch  where options.skipUndecodableItems {
                skipped += 1
            }
        }
        if skipped > 0 { options.onEvent?(.skippedItems(request: request, count: skipped)) }
        return items
    }

    private func decodeOne(_ element: Any, index: Int) throws -> Item {
        guard JSONSerialization.isValidJSONObject(element),
            let data = try? JSONSerialization.data(withJSONObject: element, options: [.sortedKeys])
        else { throw HTTPSourceError.invalidResponse("item \(index) is not a JSON object") }
        do {
            return try decodeItem(data)
        } catch {
            throw HTTPSourceError.invalidResponse("item \(index) does not decode: \(Self.reason(error))")
        }
    }

    /// A decoding error's coding path and reason, without the value that failed (it may be private).
    private static func reason(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            return "no \"\((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))\""
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\"\(path)\": \(context.debugDescription)"
        default:
            return String(describing: type(of: error))
        }
    }

    /// The value at a dotted key path (`meta.next_cursor`).
    static func value(at path: String, in body: Any) -> Any? {
        path.split(separator: ".").reduce(Optional(body)) { value, key in (value as? [String: Any])?[String(key)] }
    }

    /// A cursor: a string or a number at the path, nil for JSON null or a missing key (the end).
    static func cursor(at path: String, in body: Any) throws -> String? {
        switch value(at: path, in: body) {
        case nil, is NSNull: return nil
        case let text as String: return text
        case let number as NSNumber: return number.stringValue
        default: throw HTTPSourceError.invalidResponse("the cursor at \"\(path)\" is neither a string nor a number")
        }
    }
}
