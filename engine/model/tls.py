"""The one TLS context every model-server client of this process shares.

httpx builds a fresh context for each client it is not handed one, and building one reads the whole CA bundle
(about 30 ms): a run builds a client for the server check, one for its warm-up and one for the run itself,
and the corpus replay does that for every case, even against a plain-http loopback server. The context is
the same every time, so it is built once, on first use, the way httpx builds its own (SSL_CERT_FILE or
SSL_CERT_DIR when set, else certifi's bundle). An SSLContext may be shared across clients and threads.
"""

from __future__ import annotations

import functools
import ssl

import httpx


@functools.cache
def shared_tls_context() -> ssl.SSLContext:
    return httpx.create_ssl_context()
