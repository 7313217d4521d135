"""The one escape for text placed in HTML: ``esc``, used by every page the publish stage writes.

Its own module so that every writer of HTML (``html.py``, the glossary it imports, the site's pages) can use
it without importing the others.
"""

from __future__ import annotations

import html
from typing import Any

# Every template delimiter (``{{``, ``{%``, ``{#`` and their ends) needs a brace: written as character
# references, braces look the same in a browser and no template engine that a page may meet can read them.
_BRACES = str.maketrans({"{": "&#123;", "}": "&#125;"})


def esc(value: Any) -> str:
    """Text for HTML (an element's content or a quoted attribute): ``& < > " '`` escaped, braces too."""
    return html.escape(str(value), quote=True).translate(_BRACES)
