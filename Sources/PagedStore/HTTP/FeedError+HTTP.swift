/// Typed access to an HTTP failure behind a feed's error.
extension FeedError {
    /// The ``HTTPSourceError`` an ``HTTPPageSource`` threw, if that is what failed.
    ///
    /// ```swift
    /// if case .status(code: 401, _, _)? = error.httpError { signIn() }
    /// ```
    public var httpError: HTTPSourceError? { underlying as? HTTPSourceError }

    /// The HTTP status the server answered, if the failure was a status.
    public var httpStatus: Int? { httpError?.statusCode }
}
