"""The one help layout for commands whose description or epilog is laid out by hand (lists, examples).

argparse's ``RawDescriptionHelpFormatter`` keeps such text exactly as written, so a paragraph written as one
long line stayed one line: 659 characters in ``sllmb sweep --help``, past any terminal and past the CLI
reference's code blocks on the site. This formatter keeps every line break and indent the text was written
with and wraps each line that is too long to the help width, continuing at the line's own indent.
"""

from __future__ import annotations

import argparse
import textwrap


class LinesHelpFormatter(argparse.RawDescriptionHelpFormatter):
    def _fill_text(self, text: str, width: int, indent: str) -> str:
        out = []
        for line in text.splitlines():
            if not line.strip():
                out.append("")
                continue
            own = line[: len(line) - len(line.lstrip())]
            out.append(
                textwrap.fill(
                    line.strip(),
                    width=max(width, 20),
                    initial_indent=indent + own,
                    subsequent_indent=indent + own,
                    break_long_words=False,
                    break_on_hyphens=False,
                )
            )
        return "\n".join(out)
