extension LoopbackServer {
    /// Routes of a hostile server, each taking its size or target from the query so a test picks
    /// small CI sizes and a person the full ones:
    ///
    /// - `/seen`: every request so far (path, Host, Authorization, If-None-Match, X-Signed, User-Agent), as JSON.
    /// - `/header?status=S&name=N&value=V`: status S with one header as given, and a page body.
    /// - `/redirect?to=URL[&status=302]`: a redirect to URL; `/loop`: redirects to itself for ever.
    /// - `/linkto?target=URL`: one item, and a `Link: <URL>; rel="next"`.
    /// - `/linkself`: one item, and a `Link` to its own URL (a next page that repeats its cursor).
    /// - `/huge?bytes=N[&length=1]`: N bytes of a never-ending JSON array, streamed in 64 KiB chunks,
    ///   with an honest Content-Length only when `length=1`.
    /// - `/gzip?bytes=N`: a gzip body (Content-Encoding: gzip) that inflates to N bytes.
    /// - `/drip?every=S`: declares 1,000 bytes and sends one every S seconds.
    /// - `/fuzz?seed=N`: a random status and random `Retry-After`, `Link`, `Content-Length` and
    ///   `Content-Encoding` values (some not even text), chosen by the seed.
    static let hostileRoutes = #"""
        import gzip as gziplib, random, zlib

        def seen(handler, query):
            with lock:
                handler.send(200, list(SEEN))

        def one(name, query, default):
            return query.get(name, [default])[0]

        def header(handler, query):
            items = [{"id": "h1"}]
            handler.send(int(one("status", query, "200")), items, [(one("name", query, "X-None"), one("value", query, ""))])

        def redirect(handler, query):
            handler.send_response(int(one("status", query, "302")))
            handler.send_header("Location", one("to", query, "/"))
            handler.send_header("Content-Length", "0")
            handler.end_headers()

        def loop(handler, query):
            redirect(handler, {"to": ["/loop"]})

        def linkto(handler, query):
            handler.send(200, [{"id": "l1"}], [("Link", '<%s>; rel="next"' % one("target", query, "/"))])

        def linkself(handler, query):
            handler.send(200, [{"id": "l1"}], [("Link", '<%s>; rel="next"' % handler.path)])

        def raw_head(handler, status, headers):
            handler.wfile.write(("HTTP/1.0 %d X\r\n" % status).encode("latin-1"))
            for name, value in headers:
                handler.wfile.write(name + b": " + value + b"\r\n")
            handler.wfile.write(b"\r\n")

        def huge(handler, query):
            total = int(one("bytes", query, "1000000"))
            headers = [(b"Content-Type", b"application/json")]
            if one("length", query, "0") == "1":
                headers.append((b"Content-Length", str(total).encode()))
            raw_head(handler, 200, headers)
            chunk = b'[' + b'{"id":"x"},' * 6000
            sent = 0
            try:
                while sent < total:
                    part = chunk[:min(len(chunk), total - sent)]
                    handler.wfile.write(part)
                    sent += len(part)
            except (BrokenPipeError, ConnectionResetError):
                pass

        GZIP = {}

        def gzip(handler, query):
            total = int(one("bytes", query, "1000000"))
            with lock:
                if total not in GZIP:
                    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
                    block = b" " * (1 << 20)
                    parts, left = [], total
                    while left > 0:
                        parts.append(packer.compress(block[:min(left, len(block))]))
                        left -= min(left, len(block))
                    parts.append(packer.flush())
                    GZIP[total] = b"".join(parts)
                body = GZIP[total]
            raw_head(handler, 200, [(b"Content-Type", b"application/json"), (b"Content-Encoding", b"gzip"),
                                    (b"Content-Length", str(len(body)).encode())])
            try:
                handler.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def drip(handler, query):
            every = float(one("every", query, "5"))
            raw_head(handler, 200, [(b"Content-Type", b"application/json"), (b"Content-Length", b"1000")])
            try:
                for _ in range(1000):
                    handler.wfile.write(b" ")
                    handler.wfile.flush()
                    time.sleep(every)
            except (BrokenPipeError, ConnectionResetError):
                pass

        FUZZ_TEXT = ["inf", "-inf", "nan", "NaN", "1e300", "-1", "0", "1.5", "99999999999999999999999", "",
                     " ", "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
                     "Fri, 31 Dec 9999 23:59:59 GMT", "0x10", "+5", "5 ", "\t7", "<>", '<http://127.0.0.1:1/x>; rel="next"',
                     '<javascript:alert(1)>; rel="next"', '<', '>; rel=', 'rel="next"', "gzip", "deflate", "br",
                     "gzip, gzip", "identity", "x-unknown", "-5", "18446744073709551616", "1" * 200]

        def fuzz_value(rng):
            pick = rng.random()
            if pick < 0.4:
                return rng.choice(FUZZ_TEXT).encode("latin-1")
            if pick < 0.6:
                return str(rng.choice([rng.randint(-10**30, 10**30), rng.uniform(-1e308, 1e308), rng.randint(0, 100)])).encode()
            if pick < 0.8:
                return bytes(rng.choice(b'<>;,="\\ \t abcrelnxtp:/.0123456789') for _ in range(rng.randint(0, 80)))
            return bytes(rng.choice([b for b in range(32, 256) if b != 127]) for _ in range(rng.randint(0, 40)))

        def fuzz(handler, query):
            rng = random.Random(int(one("seed", query, "0")))
            status = rng.choice([200, 200, 200, 206, 301, 304, 403, 429, 500, 503])
            body = json.dumps([{"id": "f%d" % n} for n in range(rng.randint(0, 3))]).encode()
            headers = [(b"Content-Type", b"application/json")]
            # Framing headers less often: most bad ones end the exchange before the others are read.
            for name, chance in [(b"Retry-After", 0.8), (b"Link", 0.8), (b"X-RateLimit-Reset", 0.5),
                                 (b"Content-Length", 0.25), (b"Content-Encoding", 0.25)]:
                if rng.random() < chance:
                    headers.append((name, fuzz_value(rng)))
            if not any(name == b"Content-Length" for name, _ in headers) and rng.random() < 0.5:
                headers.append((b"Content-Length", str(len(body)).encode()))
            if status == 429 or status == 403:
                headers.append((b"X-RateLimit-Remaining", b"0"))
            try:
                raw_head(handler, status, headers)
                handler.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass

        ROUTES.update({"/seen": seen, "/header": header, "/redirect": redirect, "/loop": loop, "/linkto": linkto,
                       "/linkself": linkself, "/huge": huge, "/gzip": gzip, "/drip": drip, "/fuzz": fuzz})
        """#
}
