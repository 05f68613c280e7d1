"""A scripted OpenAI-compatible chat server on 127.0.0.1 for tests (no language model is involved).

Each POST is answered with the next scripted reply; the last reply is repeated once the others are used.
A reply is the assistant message's content (a str, or any other value, sent as its JSON), or ``bytes``: a raw
response body that is not a chat completion at all. Every request is recorded as ``(path, body)``.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class ScriptedServer:
    def __init__(self, replies):
        self.replies = list(replies)
        self.received: list[tuple[str, dict]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server API
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.received.append((self.path, body))
                content = server.replies.pop(0) if len(server.replies) > 1 else server.replies[0]
                if isinstance(content, bytes):  # a raw body: not a chat completion at all
                    payload = content
                else:
                    if not isinstance(content, str):
                        content = json.dumps(content)
                    payload = json.dumps({
                        "id": "chatcmpl-scripted", "object": "chat.completion", "created": 0,
                        "model": body["model"],
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": content}}],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                    }).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    @property
    def requests(self) -> list[dict]:
        """The request bodies received, in order."""
        return [body for _, body in self.received]

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
