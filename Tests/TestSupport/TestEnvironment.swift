import Foundation

/// What the test run was started with.
public enum TestEnvironment {
    /// Whether the suite runs under a sanitizer (`.ci/run` sets `PAGEDSTORE_SANITIZER=thread` for its
    /// ThreadSanitizer step). Memory bounds do not hold there (the sanitizer's shadow memory counts),
    /// and tests that push tens of megabytes through a transport take minutes: they test limits,
    /// not threads, and are left to the plain run.
    public static let underSanitizer = ProcessInfo.processInfo.environment["PAGEDSTORE_SANITIZER"] != nil

    /// Whether the model-based tests print each step (`PAGEDSTORE_MODEL_TRACE`), to replay a seed.
    public static let tracesModels = ProcessInfo.processInfo.environment["PAGEDSTORE_MODEL_TRACE"] != nil
}
