"""The part of a JupyterHub that a single-user server talks to, for `make test-image` (tools/image/test_image.py).

`jupyterhub-singleuser` (jupyterhub.singleuser.extension) asks its Hub's API for the Hub's version when it starts
and exits when no Hub answers (5 attempts); then, for every request, it asks `GET {api}/user` who holds the token
the request carries and whether that user's scopes grant access to this server (jupyterhub.services.auth.HubAuth).
This Hub answers those two calls: one user, one token, the scope `access:servers!server=<user>/`; any other token is
refused (403), as the real Hub refuses it. Everything else (OAuth logins in a browser, the proxy, spawning) is the
real Hub's and is not needed to show that the image serves as a single-user server.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeHub:
    def __init__(self, user: str, token: str, version: str):
        self.user, self.token, self.version = user, token, version
        self.calls: list[tuple[str, str, bool]] = []  # (method, path, token accepted)
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def _send(self, code: int, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("X-JupyterHub-Version", hub.version)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _token_ok(self) -> bool:
                auth = self.headers.get("Authorization", "")
                return auth.split(None, 1)[-1] == hub.token if auth else False

            def do_GET(self):
                path = self.path.split("?", 1)[0].rstrip("/")
                ok = self._token_ok()
                hub.calls.append(("GET", path, ok))
                if path == "/hub/api":
                    self._send(200, {"version": hub.version})
                elif path == "/hub/api/user":
                    if not ok:
                        self._send(403, {"status": 403, "message": "no such token"})
                        return
                    self._send(200, {"kind": "user", "name": hub.user, "admin": False, "groups": [],
                                     "scopes": [f"access:servers!server={hub.user}/", f"read:users:name!user={hub.user}"],
                                     "session_id": None})
                else:
                    self._send(404, {"status": 404, "message": "not found"})

            def do_POST(self):
                path = self.path.split("?", 1)[0].rstrip("/")
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                hub.calls.append(("POST", path, self._token_ok()))
                self._send(200 if path.endswith("/activity") else 404, {})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hub/api"

    def __enter__(self) -> "FakeHub":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def singleuser_env(hub: FakeHub, port: int, prefix: str, default_url: str) -> dict[str, str]:
    """The environment a Hub's spawner gives `jupyterhub-singleuser` (jupyterhub.spawner.Spawner.get_env)."""
    return {
        "JUPYTERHUB_API_TOKEN": hub.token,
        "JUPYTERHUB_API_URL": hub.api_url,
        "JUPYTERHUB_BASE_URL": "/",
        "JUPYTERHUB_USER": hub.user,
        "JUPYTERHUB_SERVER_NAME": "",
        "JUPYTERHUB_SERVICE_PREFIX": prefix,
        "JUPYTERHUB_SERVICE_URL": f"http://127.0.0.1:{port}{prefix}",
        "JUPYTERHUB_CLIENT_ID": f"jupyterhub-user-{hub.user}",
        "JUPYTERHUB_OAUTH_CALLBACK_URL": f"{prefix}oauth_callback",
        "JUPYTERHUB_OAUTH_ACCESS_SCOPES": json.dumps([f"access:servers!server={hub.user}/", f"access:servers!user={hub.user}"]),
        "JUPYTERHUB_OAUTH_CLIENT_ALLOWED_SCOPES": "[]",
        "JUPYTERHUB_HOST": "",
        "JUPYTERHUB_DEFAULT_URL": default_url,
        "JPY_API_TOKEN": hub.token,
    }
