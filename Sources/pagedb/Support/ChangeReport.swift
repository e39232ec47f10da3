import Foundation
import PagedStore

/// Prints a snapshot's change and states, for `apply` and `demo`.
enum ChangeReport {
    /// `[section, row]` lists, as the "Using pagedb" article documents them.
    static func paths(_ paths: [IndexPath]) -> String {
        paths.isEmpty ? "-" : paths.map { "[\($0[0]), \($0[1])]" }.joined(separator: " ")
    }

    /// One line per kind of change that is not empty.
    static func lines(_ change: FeedChange) -> [String] {
        if change.isFullReload { return ["full reload"] }
        var lines: [String] = []
        if !change.insertedSections.isEmpty { lines.append("inserted sections: \(Array(change.insertedSections))") }
        if !change.deletedSections.isEmpty { lines.append("deleted sections: \(Array(change.deletedSections))") }
        if !change.insertedRows.isEmpty { lines.append("inserted: \(paths(change.insertedRows))") }
        if !change.reloadedRows.isEmpty { lines.append("reloaded: \(paths(change.reloadedRows))") }
        if !change.deletedRows.isEmpty { lines.append("deleted: \(paths(change.deletedRows))") }
        if !change.movedRows.isEmpty {
            lines.append(
                "moved: " + change.movedRows.map { "\(paths([$0.from])) -> \(paths([$0.to]))" }.joined(separator: " "))
        }
        return lines
    }

    /// `content, refresh idle, next page loading`; `content` names the content when given.
    static func states<Item>(_ snapshot: FeedSnapshot<Item>, content: String? = nil) -> String {
        "\(content ?? name(snapshot.content)), refresh \(name(snapshot.refresh)), next page \(name(snapshot.nextPage))"
    }

    static func name(_ state: ContentState) -> String {
        switch state {
        case .initialLoading: "initialLoading"
        case .content: "content"
        case .empty: "empty"
        case .error(let error): "error (\(Terminal.escape(error.message)))"
        }
    }

    static func name(_ activity: RefreshActivity) -> String {
        switch activity {
        case .idle: "idle"
        case .loading: "loading"
        case .failed(let error): "failed (\(Terminal.escape(error.message)))"
        }
    }

    static func name(_ activity: NextPageActivity) -> String {
        switch activity {
        case .idle: "idle"
        case .loading: "loading"
        case .endReached: "endReached"
        case .failed(let error): "failed (\(Terminal.escape(error.message)))"
        }
    }

}
