"""Container healthcheck: exit 0 when the URL answers 2xx, 1 otherwise.

The images carry no curl or wget (smaller attack surface), so the probe is stdlib Python.
"""

import sys
import urllib.request

DEFAULT_URL = "http://127.0.0.1:9000/healthz"
TIMEOUT_S = 4.0


def main() -> int:
    url = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_URL
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_S) as response:
            return 0 if 200 <= response.status < 300 else 1
    except OSError:
        return 1


if __name__ == "__main__":
    sys.exit(main())
