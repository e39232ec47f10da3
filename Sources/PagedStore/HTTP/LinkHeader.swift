/// Parses an RFC 8288 `Link` header: `<https://api.example/items?max_id=9>; rel="next", <…>; rel="prev"`.
enum LinkHeader {
    /// The target of each relation, by relation name (lowercased). A `rel` may list several names.
    static func relations(_ header: String) -> [String: String] {
        var relations: [String: String] = [:]
        var rest = Substring(header)
        while let open = rest.firstIndex(of: "<") {
            guard let close = rest[open...].firstIndex(of: ">") else { break }
            let target = String(rest[rest.index(after: open)..<close])
            // Parameters run to the next link, which starts at a comma outside quotes.
            var index = rest.index(after: close)
            var inQuotes = false
            while index < rest.endIndex {
                let character = rest[index]
                if character == "\"" { inQuotes.toggle() }
                if character == ",", !inQuotes { break }
                index = rest.index(after: index)
            }
            for parameter in rest[rest.index(after: close)..<index].split(separator: ";") {
                let parts = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: " \t\"") }
                guard parts.count == 2, parts[0].lowercased() == "rel" else { continue }
                for name in parts[1].split(separator: " ") { relations[name.lowercased()] = target }
            }
            rest = index < rest.endIndex ? rest[rest.index(after: index)...] : ""
        }
        return relations
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in characters: String) -> String {
        var text = Substring(self)
        while let first = text.first, characters.contains(first) { text = text.dropFirst() }
        while let last = text.last, characters.contains(last) { text = text.dropLast() }
        return String(text)
    }
}
