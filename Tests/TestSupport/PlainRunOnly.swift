public import Testing

extension Trait where Self == ConditionTrait {
    /// Leaves a suite to the plain run, skipping it under a sanitizer.
    ///
    /// For suites that test what `pagedb`'s single-threaded commands do to files (seeds, exports,
    /// inspection, damaged and racing files between processes), text against FTS5, or pure rules and
    /// a single connection's storage at large random sizes: the
    /// ThreadSanitizer step looks for data races between threads, which these do not have, and
    /// their instrumented processes took most of that step's time. Suites whose processes run the
    /// library's concurrent parts (sync, watch, the outbox, following another process's writes)
    /// and the crash harnesses, at their small sizes, still run there.
    public static var plainRunOnly: Self {
        .disabled(
            if: TestEnvironment.underSanitizer, "tests files, processes or text, not threads: left to the plain run")
    }
}
