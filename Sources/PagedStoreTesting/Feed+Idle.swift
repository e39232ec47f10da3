public import PagedStore

extension Feed {
    /// Waits until no fetch that the feed started in the background (a next page prefetched by
    /// ``Feed/rowDidAppear(_:)``, the next page a refresh of an empty page starts) is in flight, so a
    /// test can check the state that follows without sleeping.
    public func waitUntilIdle() async {
        await waitForBackgroundFetches()
    }
}
