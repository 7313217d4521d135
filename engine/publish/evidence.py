"""The evidence of every trial, per task, as the site's task pages read it: one JSON document per task holding
every model's trials of it (turns, tool calls and the tools' answers, the grade, the judge's decision).

The documents are data, written to their own files at build and read by the page's script, which places every
string as text (``textContent``), never as HTML; nothing here meets the macro engine or Markdown.
"""

from __future__ import annotations

import hashlib
import re

# A task id that is already a safe path segment is its own slug; anything else (a result file may say
# anything) becomes a hash, so no id can reach outside tasks/ or collide with another page.
_PLAIN_ID = re.compile(r"^[a-z0-9][a-z0-9_]{0,79}$")


def task_slug(task_id: str) -> str:
    """The path segment of a task's page: the id when it is plain, otherwise ``task-`` and a hash of it."""
    if _PLAIN_ID.match(task_id):
        return task_id
    return "task-" + hashlib.sha256(task_id.encode("utf-8", "surrogatepass")).hexdigest()[:16]
