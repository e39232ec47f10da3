public import Testing

extension Trait where Self == TimeLimitTrait {
    /// Every suite's limit on each of its tests: a hang fails within minutes, not at the end of CI.
    ///
    /// `minutes` is what the test's own work may take in the plain run, with room for a loaded
    /// machine: one for most suites, three for suites of many or slower steps, fifteen for the
    /// harnesses whose sizes CI raises (crashes, corruption, fuzzing, random sequences, seeds of
    /// hundreds of thousands of rows). Under ThreadSanitizer the
    /// same work is several times slower and a test shares two cores with hundreds of others that
    /// started with it, so the limit there is five times longer.
    public static func limit(minutes: Int = 1) -> Self {
        .timeLimit(.minutes(TestEnvironment.underSanitizer ? 5 * minutes : minutes))
    }
}
