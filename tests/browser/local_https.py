"""A real HTTPS server on 127.0.0.1 that Chromium reaches under a site's own host name (--host-resolver-rules),
for what Playwright's routes cannot serve: a body streamed without a Content-Length, a gzip body Chromium
decodes itself, a body that drips. Each answer records how much it sent and whether the client hung up first,
which is what shows a reader stopped early."""

from __future__ import annotations

import http.server
import ssl
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

GONE = (BrokenPipeError, ConnectionResetError, ssl.SSLError, TimeoutError)


@dataclass
class Outcome:
    path: str
    sent: int = 0  # body bytes written (as sent: compressed for a gzip body)
    hung_up: bool = False  # the client closed the connection before the body ended
    seconds: float = 0.0  # from the request to the end of the answer
    finished: bool = False


@dataclass
class LocalHttps:
    host: str
    folder: Path
    answers: dict[str, Callable[[http.server.BaseHTTPRequestHandler, Outcome], None]] = field(
        default_factory=dict
    )
    outcomes: list[Outcome] = field(default_factory=list)

    def start(self) -> LocalHttps:
        cert, key = self.folder / "cert.pem", self.folder / "key.pem"
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-keyout", str(key),
             "-out", str(cert), "-subj", f"/CN={self.host}", "-addext", f"subjectAltName=DNS:{self.host}"],
            check=True, capture_output=True,
        )  # fmt: skip
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):  # noqa: N802 (the http.server name)
                path = self.path.partition("?")[0]
                outcome = Outcome(path)
                server.outcomes.append(outcome)
                began = time.monotonic()
                answer = server.answers.get(path)
                try:
                    if answer is None:
                        self.send_error(404)
                    else:
                        answer(self, outcome)
                except GONE:
                    outcome.hung_up = True
                outcome.seconds = time.monotonic() - began
                outcome.finished = True
                self.close_connection = True

            def log_message(self, *args):  # quiet
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        return self

    @property
    def port(self) -> int:
        return self.httpd.server_address[1]

    def resolver_rule(self) -> str:
        return f"--host-resolver-rules=MAP {self.host} 127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def finished(self, path: str) -> list[Outcome]:
        return [o for o in self.outcomes if o.path == path and o.finished]


def chunked(total: int, chunk: int = 64 * 1024):
    """`total` bytes in chunked transfer encoding: no Content-Length for the reader to check first."""

    def answer(handler, outcome: Outcome) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "image/png")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        block = b"\x89PNG" + b"\1" * (chunk - 4)
        while outcome.sent < total:
            handler.wfile.write(b"%x\r\n%s\r\n" % (len(block), block))
            outcome.sent += len(block)
        handler.wfile.write(b"0\r\n\r\n")

    return answer


def gzip_body(compressed: bytes, piece: int = 8 * 1024, pause: float = 0.03):
    """A gzip-encoded body (Content-Length: its compressed size), sent a piece at a time: the reader decodes it."""

    def answer(handler, outcome: Outcome) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "image/png")
        handler.send_header("Content-Encoding", "gzip")
        handler.send_header("Content-Length", str(len(compressed)))
        handler.end_headers()
        for at in range(0, len(compressed), piece):
            handler.wfile.write(compressed[at : at + piece])
            outcome.sent += len(compressed[at : at + piece])
            time.sleep(pause)

    return answer


def drip(length: int, every: float, longest: float):
    """A small body (`length` bytes declared) sent a byte every `every` seconds, for at most `longest` seconds."""

    def answer(handler, outcome: Outcome) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "image/png")
        handler.send_header("Content-Length", str(length))
        handler.end_headers()
        began = time.monotonic()
        while outcome.sent < length and time.monotonic() - began < longest:
            handler.wfile.write(b"\1")
            outcome.sent += 1
            time.sleep(every)

    return answer
