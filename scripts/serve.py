#!/usr/bin/env python3
"""Serves a built page (scripts/build-page.sh's folder) on 127.0.0.1, gzip-compressed as a web
server of a docs site would send it: the wasm is 1.8 MB gzipped instead of 5 MB.

    python3 scripts/serve.py PORT DIR

Python's own http.server, with each file compressed once (gzip -9) when a browser accepts gzip.
"""
import functools
import gzip
import http.server
import os
import sys

COMPRESSED = (".wasm", ".js", ".css", ".html", ".json", ".svg")


class Handler(http.server.SimpleHTTPRequestHandler):
    cache = {}

    def send_head(self):
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            path = os.path.join(path, "index.html")
        accepts = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (accepts and path.endswith(COMPRESSED) and os.path.isfile(path)):
            return super().send_head()
        stat = os.stat(path)
        key = (path, stat.st_mtime_ns, stat.st_size)
        body = self.cache.get(key)
        if body is None:
            with open(path, "rb") as f:
                body = gzip.compress(f.read(), 9)
            self.cache[key] = body
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Vary", "Accept-Encoding")
        self.end_headers()
        return _Body(body)


class _Body:
    """The compressed bytes, read as the file send_head returns would be."""

    def __init__(self, body):
        self.body = body

    def read(self, *_):
        body, self.body = self.body, b""
        return body

    def close(self):
        pass


if __name__ == "__main__":
    port, folder = int(sys.argv[1]), sys.argv[2]
    Handler.extensions_map[".wasm"] = "application/wasm"
    handler = functools.partial(Handler, directory=folder)
    with http.server.ThreadingHTTPServer(("127.0.0.1", port), handler) as server:
        server.serve_forever()
