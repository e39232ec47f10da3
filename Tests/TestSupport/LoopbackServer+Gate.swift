extension LoopbackServer {
    /// A route that holds its answer until the test says, so that a test can act (take a lock, change
    /// a file) while a client waits for the server, ordered by events rather than by sleeps:
    ///
    /// - `/gate`: waits until the gate opens (at most a minute), then answers as `/body` does.
    /// - `/gate/arrived`: answers once a request is waiting at `/gate`.
    /// - `/gate/open`: opens the gate.
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

        ROUTES.update({"/gate": gate, "/gate/arrived": gate_arrived, "/gate/open": gate_open})
        """#
}
