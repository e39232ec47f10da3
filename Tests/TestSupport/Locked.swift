import Foundation

/// One value behind a lock, shared between a test and the closures it hands out (a scripted
/// source's responder, an event hook, an observation callback): read and written from any thread.
public final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: Value

    /// A box holding `value`.
    public init(_ value: Value) { stored = value }

    /// The value, read or replaced whole.
    public var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    /// Runs `body` on the value under the lock, and returns what it returns.
    @discardableResult
    public func mutate<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock { try body(&stored) }
    }
}

extension Locked where Value == Int {
    /// Adds one and returns the new count: 1 on the first call.
    public func increment() -> Int {
        mutate {
            $0 += 1
            return $0
        }
    }
}

extension Locked where Value == Bool {
    /// The value, which is then cleared: one reader sees each setting.
    public func take() -> Bool {
        mutate { value in
            defer { value = false }
            return value
        }
    }
}

extension Locked {
    /// Appends to an array.
    public func append<Element>(_ element: Element) where Value == [Element] {
        mutate { $0.append(element) }
    }

    /// Inserts into a set.
    public func insert<Element>(_ element: Element) where Value == Set<Element> {
        mutate { _ = $0.insert(element) }
    }
}
