public import Foundation

/// A real HTTP server on 127.0.0.1, Python's standard library, started per test and stopped with it.
///
/// Routes: `/body` (a JSON body with `data.items` and `meta.next_cursor`, cursor in `?cursor=`),
/// `/link` (an array body with RFC 8288 Link headers), `/flaky` (503 with `Retry-After: 1` once, then
/// `/body`), `/bad` (a body without items), `/race` (the first request answers late with version A,
/// later ones at once with version B), `/slow` (answers after 3 s). Hostile routes are in
/// `LoopbackServer+Hostile.swift`, replayed real APIs in `LoopbackServer+APIs.swift`, a route that
/// answers when the test says, and one that answers once requests arrived, in `LoopbackServer+Gate.swift`;
/// a server of queued edits that applies each idempotency key once in `LoopbackServer+Mutations.swift`.
public final class LoopbackServer: Sendable {
    let process: ChildProcess
    /// The port the server listens on.
    public let port: Int
    private let folder: TemporaryDirectory

    /// `http://127.0.0.1:PORT`.
    public var base: URL { URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/") }

    /// Starts a server and waits until it listens.
    public init() throws {
        folder = try TemporaryDirectory(prefix: "loopback")
        let script = folder.url.appendingPathComponent("server.py")
        let source = [
            Self.script, Self.hostileRoutes, Self.apiRoutes, Self.mastodonHomeRoutes, Self.gateRoutes,
            Self.mutationRoutes, Self.serve,
        ].joined(
            separator: "\n")
        try Data(source.utf8).write(to: script)
        process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path]
        let output = Pipe()
        process.standardOutput = output
        // Not the test's stderr: a server holding it open would keep `swift test` waiting.
        process.standardError = FileHandle.nullDevice
        try process.start()
        port = Self.readPort(output.fileHandleForReading)
    }

    /// The port the script prints on its first line. `availableData` traps on an interrupted read
    /// (EINTR, common while many tests start processes at once), so this reads with the throwing API
    /// and tries again.
    private static func readPort(_ handle: FileHandle) -> Int {
        var line = Data()
        var attempts = 0
        while !line.contains(UInt8(ascii: "\n")), attempts < 1000 {
            attempts += 1
            do {
                // One byte at a time: a larger count waits for that many bytes, and the server sends only its port.
                guard let chunk = try handle.read(upToCount: 1), !chunk.isEmpty else { break }
                line.append(chunk)
            } catch {
                continue
            }
        }
        return Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// The URL of a route.
    public func url(_ path: String) -> URL { base.appendingPathComponent(path) }

    deinit {
        // SIGKILL: Python's server threads can outlive a SIGTERM.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()  // killed: it ends at once, and is reaped rather than left a zombie
    }

    // No descriptor beyond the standard three reaches the server (``ChildProcess`` closes them in
    // the child), so it never holds another test's pipe open.
    static let script = #"""
        import json, os, sys, threading, time
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        from urllib.parse import urlparse, parse_qs

        ITEMS = [{"id": "i%d" % n, "title": "Item %d" % n} for n in range(25)]
        state = {"flaky": 0, "race": 0}
        lock = threading.Lock()
        # Every request's path and the headers a test checks for leaks; `/seen` answers them.
        SEEN = []
        # Notified on every request received, for `/arrived` (LoopbackServer+Gate.swift).
        ARRIVED = threading.Condition()
        # Routes added by the other parts of the script: path -> function(handler, query).
        ROUTES = {}

        def page(after):
            start = 0
            if after:
                start = next((i + 1 for i, item in enumerate(ITEMS) if item["id"] == after), len(ITEMS))
            items = ITEMS[start:start + 10]
            nxt = items[-1]["id"] if start + 10 < len(ITEMS) and items else None
            return items, nxt

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def send(self, status, body, headers=()):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def body(self, query):
                items, nxt = page(query.get("cursor", [None])[0])
                self.send(200, {"data": {"items": items}, "meta": {"next_cursor": nxt, "previous_cursor": items[0]["id"] if items else None}})

            def do_GET(self):
                url = urlparse(self.path)
                query = parse_qs(url.query)
                host = "http://127.0.0.1:%d" % self.server.server_port
                with lock:
                    SEEN.append({"path": url.path, "host": self.headers.get("Host"),
                                 "authorization": self.headers.get("Authorization"),
                                 "if_none_match": self.headers.get("If-None-Match"),
                                 "x_signed": self.headers.get("X-Signed"),
                                 "user_agent": self.headers.get("User-Agent")})
                with ARRIVED:
                    ARRIVED.notify_all()
                if url.path in ROUTES:
                    ROUTES[url.path](self, query)
                elif url.path == "/body":
                    self.body(query)
                elif url.path == "/link":
                    items, nxt = page(query.get("after", [None])[0])
                    links = []
                    if nxt:
                        links.append('<%s/link?after=%s>; rel="next"' % (host, nxt))
                    if items:
                        links.append('<%s/link?before=%s>; rel="prev"' % (host, items[0]["id"]))
                    self.send(200, items, [("Link", ", ".join(links))] if links else [])
                elif url.path == "/flaky":
                    with lock:
                        state["flaky"] += 1
                        first = state["flaky"] == 1
                    if first:
                        self.send(503, {"error": "busy"}, [("Retry-After", "1")])
                    else:
                        self.body(query)
                elif url.path == "/bad":
                    self.send(200, {"data": {"things": []}})
                elif url.path == "/race":
                    with lock:
                        state["race"] += 1
                        first = state["race"] == 1
                    if first:
                        time.sleep(0.8)
                    version = "A" if first else "B"
                    self.send(200, {"data": {"items": [{"id": version + "%d" % n} for n in range(3)]}, "meta": {"next_cursor": None}})
                elif url.path == "/slow":
                    time.sleep(3)
                    self.body(query)
                else:
                    self.send(404, {"error": "no route"})

        """#

    /// The end of the script: a watchdog, then the server on an ephemeral port of 127.0.0.1.
    static let serve = #"""

        def watchdog(parent):
            # Gone with the test process. The lifetime cap is only a last resort: under ThreadSanitizer a
            # test can take minutes, and a server that quits early fails it (two minutes once did).
            started = time.time()
            while os.getppid() == parent and time.time() - started < 1800:
                time.sleep(0.2)
            os._exit(0)

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=watchdog, args=(os.getppid(),), daemon=True).start()
        print(server.server_port, flush=True)
        server.serve_forever()
        """#
}
