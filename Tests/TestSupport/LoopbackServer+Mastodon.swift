extension LoopbackServer {
    /// A Mastodon home timeline that pages the way the API documents it, for the timeline tests.
    ///
    /// - `/mastodon/home?max_id=&since_id=&min_id=&limit=`: statuses newest first, shaped like the
    ///   API documentation's Status example (string snowflake-like ids, fractional dates, an account,
    ///   HTML content, media). `max_id` gives the newest statuses older than it; `since_id` the newest
    ///   newer than it; `min_id` the statuses right above it (the oldest newer ones), newest first.
    ///   `Link` has `rel="next"` (`max_id` of the last) and `rel="prev"` (`min_id` of the first)
    ///   when the page has statuses. Only the newest `keep` statuses are served, as Mastodon keeps a
    ///   few hundred in a home feed: older ones are gone (an empty page, without links).
    /// - `/mastodon/home/reset?count=N&keep=K`: a timeline of N statuses (default 100), keeping K.
    /// - `/mastodon/home/publish?count=N`: N new statuses on top.
    /// - `/mastodon/home/delete?n=N`: status number N is deleted (its author deleted the post).
    static let mastodonHomeRoutes = #"""
        HOME = {"statuses": [], "next": 0, "keep": 400}

        def status(n):
            return {"id": str(113000000000000000 + n * 65536), "created_at": "2024-05-%02dT%02d:%02d:%02d.%03dZ" % (
                        1 + n // 86400 % 28, n // 3600 % 24, n // 60 % 60, n % 60, n * 37 % 1000),
                    "in_reply_to_id": None, "sensitive": False, "spoiler_text": "", "visibility": "public",
                    "language": "en", "uri": "https://mastodon.example/users/a/statuses/%d" % n,
                    "url": "https://mastodon.example/@a/%d" % n, "replies_count": n % 3, "reblogs_count": n % 5,
                    "favourites_count": n % 7, "content": "<p>Toot %d with <a href=\"https://x\">a link</a></p>" % n,
                    "reblog": None, "account": {"id": "1", "username": "a", "acct": "a", "display_name": "A",
                                                "avatar": "https://files.example/a.png"},
                    "media_attachments": [], "mentions": [], "tags": [], "emojis": []}

        def home_publish(count):
            with lock:
                for _ in range(count):
                    HOME["next"] += 1
                    HOME["statuses"].insert(0, status(HOME["next"]))

        def mastodon_home_reset(handler, query):
            with lock:
                HOME["statuses"], HOME["next"], HOME["keep"] = [], 0, int(one("keep", query, "400"))
            home_publish(int(one("count", query, "100")))
            handler.send(200, {})

        def mastodon_home_publish(handler, query):
            home_publish(int(one("count", query, "1")))
            handler.send(200, {})

        def mastodon_home_delete(handler, query):
            gone = status(int(one("n", query, "0")))["id"]
            with lock:
                HOME["statuses"] = [s for s in HOME["statuses"] if s["id"] != gone]
            handler.send(200, {})

        def mastodon_home(handler, query):
            with lock:
                kept = HOME["statuses"][:HOME["keep"]]
            limit = min(int(one("limit", query, "20")), 40)
            max_id, since_id, min_id = one("max_id", query, None), one("since_id", query, None), one("min_id", query, None)
            rows = [s for s in kept if (max_id is None or int(s["id"]) < int(max_id))
                    and (since_id is None or int(s["id"]) > int(since_id))
                    and (min_id is None or int(s["id"]) > int(min_id))]
            items = rows[-limit:] if min_id is not None else rows[:limit]
            links = []
            if items:
                links.append('<%s/mastodon/home?max_id=%s>; rel="next"' % (base(handler), items[-1]["id"]))
                links.append('<%s/mastodon/home?min_id=%s>; rel="prev"' % (base(handler), items[0]["id"]))
            handler.send(200, items, [("Link", ", ".join(links))] if links else [])

        ROUTES.update({"/mastodon/home": mastodon_home, "/mastodon/home/reset": mastodon_home_reset,
                       "/mastodon/home/publish": mastodon_home_publish, "/mastodon/home/delete": mastodon_home_delete})
        """#
}
