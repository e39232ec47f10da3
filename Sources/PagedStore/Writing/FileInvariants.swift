import Foundation

extension InvariantRules {
    /// The engine's rules, as ``PageStore/verify()`` checks a file against them.
    static let engine = InvariantRules(
        mayStayEmpty: { page, isBottom, pageCount in
            EmptyPageRule.mayStayEmpty(page, isBottom: isBottom, pageCount: pageCount)
        },
        stackProblems: { edits in
            PendingEditStack.stacks(edits).compactMap { stack in
                guard let problem = PendingEditStack.problem(of: stack), let first = stack.first else { return nil }
                return (first.itemID, problem)
            }
        })
}

extension PageStore {
    /// Every violation of the file's invariants, by the engine's rules (see ``verify(_:)``); none for
    /// a sound cache.
    package func verify() throws -> [InvariantViolation] {
        try verify(.engine)
    }
}
