extension LoopbackServer {
    /// Routes that answer as real APIs do, for the "Real APIs" article's examples:
    ///
    /// - `/github/issues?page=N`: three pages of GitHub issues (snake_case keys, integer ids, ISO 8601
    ///   dates), `Link` with `rel="next"` and `rel="last"` page numbers, an `ETag` on every page and
    ///   `304` to a matching `If-None-Match`. Page 1 holds one item whose date is not a date.
    /// - `/github/limited?in=S`: `403` with `X-RateLimit-Remaining: 0` and a reset S seconds away (epoch
    ///   seconds; default 2).
    /// - `/mastodon/timeline?max_id=X`: statuses with string ids and fractional-second dates, `Link`
    ///   with `max_id` (next) and `min_id` (prev); the first request answers `206` (regenerating).
    /// - `/mastodon/limited?in=S`: `429` with an ISO 8601 `X-RateLimit-Reset` S seconds away (default 2).
    /// - `/cursor/posts?after=C`: `{"data": [...], "paging": {"next": C, "prev": C}}`, 7 posts.
    /// - `/modified`: a page with `Last-Modified`, `304` to a matching `If-Modified-Since`.
    static let apiRoutes = #"""
        import datetime

        def base(handler):
            return "http://127.0.0.1:%d" % handler.server.server_port

        ISSUES = [{"id": 1000 + n, "number": n, "title": "Issue %d" % n, "html_url": "https://x/%d" % n,
                   "created_at": "2024-01-%02dT10:00:00Z" % (n + 1), "pull_request": {"url": "u"} if n % 4 == 3 else None}
                  for n in range(9)]
        ISSUES[1]["created_at"] = "yesterday"

        def github_issues(handler, query):
            number = int(one("page", query, "1"))
            items = ISSUES[(number - 1) * 3:number * 3]
            etag = 'W/"issues-%d"' % number
            if handler.headers.get("If-None-Match") == etag:
                handler.send_response(304)
                handler.send_header("ETag", etag)
                handler.end_headers()
                return
            links = []
            if number < 3:
                links.append('<%s/github/issues?page=%d>; rel="next"' % (base(handler), number + 1))
            links.append('<%s/github/issues?page=3>; rel="last"' % base(handler))
            handler.send(200, items, [("Link", ", ".join(links)), ("ETag", etag), ("X-RateLimit-Remaining", "4999"),
                                      ("X-RateLimit-Reset", str(int(time.time()) + 3600))])

        def github_limited(handler, query):
            handler.send(403, {"message": "API rate limit exceeded"},
                         [("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", str(int(time.time()) + int(one("in", query, "2"))))])

        STATUSES = [{"id": str(110000 - n), "created_at": "2024-05-01T12:00:%02d.%03dZ" % (59 - n, n * 7),
                     "content": "<p>Toot %d</p>" % n} for n in range(8)]

        def mastodon_timeline(handler, query):
            with lock:
                state["mastodon"] = state.get("mastodon", 0) + 1
                first = state["mastodon"] == 1
            if first:
                handler.send(206, [])
                return
            max_id = one("max_id", query, None)
            rest = [s for s in STATUSES if max_id is None or int(s["id"]) < int(max_id)]
            items = rest[:4]
            links = []
            if len(rest) > 4:
                links.append('<%s/mastodon/timeline?max_id=%s>; rel="next"' % (base(handler), items[-1]["id"]))
            if items:
                links.append('<%s/mastodon/timeline?min_id=%s>; rel="prev"' % (base(handler), items[0]["id"]))
            handler.send(200, items, [("Link", ", ".join(links))] if links else [])

        def mastodon_limited(handler, query):
            reset = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=int(one("in", query, "2")))
            handler.send(429, {"error": "Too many requests"},
                         [("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", reset.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z")])

        POSTS = [{"id": "p%d" % n, "text": "Post %d" % n} for n in range(7)]

        def cursor_posts(handler, query):
            after = one("after", query, None)
            start = next((i + 1 for i, p in enumerate(POSTS) if p["id"] == after), 0)
            items = POSTS[start:start + 3]
            nxt = items[-1]["id"] if start + 3 < len(POSTS) else None
            handler.send(200, {"data": items, "paging": {"next": nxt, "prev": items[0]["id"] if items else None}})

        MODIFIED = "Wed, 21 Oct 2015 07:28:00 GMT"

        def modified(handler, query):
            if handler.headers.get("If-Modified-Since") == MODIFIED:
                handler.send_response(304)
                handler.end_headers()
                return
            handler.send(200, {"items": [{"id": "m1"}, {"id": "m2"}], "next_cursor": None}, [("Last-Modified", MODIFIED)])

        ROUTES.update({"/github/issues": github_issues, "/github/limited": github_limited,
                       "/mastodon/timeline": mastodon_timeline, "/mastodon/limited": mastodon_limited,
                       "/cursor/posts": cursor_posts, "/modified": modified})
        """#
}
