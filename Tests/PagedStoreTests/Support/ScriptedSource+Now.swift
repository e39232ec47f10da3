import PagedStoreTesting
import TestSupport

@testable import PagedStore

extension ScriptedSource {
    /// A source whose one page is what `items` holds when it is asked: a test changes the server
    /// by changing `items`.
    static func serving(_ items: Locked<[Item]>) -> ScriptedSource<Item> {
        ScriptedSource<Item> { _ in Page(items: items.value, olderCursor: nil) }
    }
}
