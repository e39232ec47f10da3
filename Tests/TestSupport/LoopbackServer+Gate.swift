extension LoopbackServer {
    /// A route that holds its answer until the test says, so that a test can act (take a lock, change
    /// a file) while a client waits for the server, ordered by events rather than by sleeps:
    ///
    /// - `/gate`: waits until the gate opens (at most a minute), then answers as `/body` does.
    /// - `/gate/arrived`: answers once a request is waiting at `/gate`.
    /// - `/gate/open`: opens the gate.
    /// - `/arrived?path=P&count=N`: answers once the server received N requests for P (at most a minute).
    static let gateRoutes = #"""
        GATE = {"arrived": threading.Event(), "open": threading.Event()}

        def gate(handler, query):
            GATE["arrived"].set()
            GATE["open"].wait(60)
            handler.body(query)

        def gate_arrived(handler, query):
            GATE["arrived"].wait(60)
            handler.send(200, {})

        def gate_open(handler, query):
            GATE["open"].set()
            handler.send(200, {})

        def arrived(handler, query):
            path = query.get("path", [""])[0]
            count = int(query.get("count", ["1"])[0])
            with ARRIVED:
                ARRIVED.wait_for(lambda: sum(1 for seen in SEEN if seen["path"] == path) >= count, 60)
            handler.send(200, {})

        ROUTES.update({"/gate": gate, "/gate/arrived": gate_arrived, "/gate/open": gate_open, "/arrived": arrived})
        """#
}

extension LoopbackServer {
    /// Returns once the server received `count` requests for `path` (a route such as `/race`), so
    /// that a test orders its requests by what the server saw rather than by sleeps.
    public func arrived(_ path: String, count: Int = 1) async throws {
        try await control("arrived", ["path": path, "count": "\(count)"])
    }
}
