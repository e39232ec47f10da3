#if !canImport(SwiftUI)
// The few SwiftUI names the README's and the articles' examples use, with SwiftUI's shapes, so the
// examples compile on Linux too: what they check is PagedStore's side (types, optionals, actors).
// On Apple platforms the real SwiftUI compiles them instead.

/// A view.
@MainActor protocol View {
    associatedtype Body
    @ViewBuilder var body: Body { get }
}

/// A leaf view: its body is nothing.
protocol LeafView: View where Body == Void {}
extension LeafView {
    var body: Void { () }
}

@resultBuilder enum ViewBuilder {
    static func buildBlock<Content: View>(_ content: Content) -> Content { content }
    static func buildEither<First: View, Second: View>(first: First) -> Either<First, Second> { .first(first) }
    static func buildEither<First: View, Second: View>(second: Second) -> Either<First, Second> { .second(second) }
}

enum Either<First: View, Second: View>: LeafView {
    case first(First)
    case second(Second)
}

@propertyWrapper struct State<Value> {
    var wrappedValue: Value
}

struct Text: LeafView {
    init(_ text: String) {}
}

struct ProgressView: LeafView {}

struct Button: LeafView {
    init(_ title: String, action: @escaping @MainActor () -> Void) {}
}

struct List<Data: RandomAccessCollection, Row: View>: LeafView where Data.Element: Identifiable {
    init(_ data: Data, @ViewBuilder rowContent: @escaping (Data.Element) -> Row) {}
}

struct ForEach<Data: RandomAccessCollection, Row: View>: LeafView where Data.Element: Identifiable {
    init(_ data: Data, @ViewBuilder content: @escaping (Data.Element) -> Row) {}
}

struct Modified<Content: View>: LeafView {
    let content: Content
}

extension View {
    func onAppear(perform action: @escaping @MainActor () -> Void) -> Modified<Self> { Modified(content: self) }
    func refreshable(action: @escaping @Sendable () async -> Void) -> Modified<Self> { Modified(content: self) }
    func task(_ action: @escaping @Sendable () async -> Void) -> Modified<Self> { Modified(content: self) }
}
#endif
