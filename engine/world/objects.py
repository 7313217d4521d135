"""The objects a world holds, and where a text names one: an order, a key, a file, a request, a person.

A report in a final message ("bumped payments.config_version to 8", "emailed Nils") is about an object; to
check it against the log the reader must know which object the words name. This module lists every object
of the world (its seed, and every object a call named, the gold's included) with the ways a text names it:

- **exactly**, by its own identifier: an order or request id (``O-72``, ``R-3``), a whole key
  (``payments.config_version``), a whole path (``docs/oncall.md``), an email address;
- **by an alias** that still picks out few objects: a key's last part (``config_version``, ``config
  version``), a file's base name (``oncall.md``), a person's name or one part of it (``Nils``, ``Priya
  Nair``), the name part of an address (``eriksen`` in ``n.eriksen@...``). A person is the address a call
  sends to; the names come from the address book and from any line of the world's text that holds an
  address (a roster table's row);
- **by description**, loosely: a word the object's own data uses (``version`` of ``payments.config_version``,
  the team ``risk (lead)`` of a contact, an order's item). A description never resolves an object; it only
  tells a check that the words may be about an object other than the ones it can see, so that the check
  can say it is unsure.

Matching is on lower-cased text; an identifier must stand alone (``room`` is not found inside
``offsite.room``, ``O-7`` not inside ``O-72``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.world.state import WorldState
from engine.world.toolkit import ObjectKind

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
# Two or more capitalised words in a row: a person's name on a line that holds an address.
_FULL_NAME = re.compile(r"\b[A-Z][a-z]+(?:[ -][A-Z][a-z]+)+\b")
_WORD = re.compile(r"[a-z]+")
# A part of a name or identifier shorter than this names too much to count ("n", "db", "s").
_MIN_PART = 3
# Words a description uses for every object alike: they point at none in particular.
_GENERIC = frozenset({"change", "changes", "status", "value", "values", "note", "notes", "file", "files", "docs",
                      "item", "items", "order", "orders", "request", "requests", "team", "lead", "email"})


def _standing_alone(aliases: Iterable[str]) -> re.Pattern[str]:
    # An identifier stands alone: not preceded by a character it could continue, and not followed by one
    # (a full stop counts only when a word follows it, so "offsite.room." at a sentence end still matches).
    # Longest first, so that "offsite.room" is found whole rather than as "room".
    words = "|".join(re.escape(a) for a in sorted(aliases, key=len, reverse=True))
    return re.compile(rf"(?<![\w@/.-])(?:{words})(?![\w@/-]|\.\w)")


@dataclass(frozen=True)
class Mention:
    """Where a text names objects: the words, the kind, every object they can name, and whether they are an
    object's own identifier (``exact``) or an alias."""

    start: int
    end: int
    kind: ObjectKind
    objects: frozenset[str]
    exact: bool


class ObjectIndex:
    """Every object of one world and the words that name it."""

    def __init__(self, names: Mapping[tuple[ObjectKind, str], Iterable[str]],
                 aliases: Mapping[tuple[ObjectKind, str], Iterable[str]],
                 described: Mapping[tuple[ObjectKind, str], Iterable[str]],
                 values: Mapping[tuple[ObjectKind, str], str] | None = None) -> None:
        # words -> kind -> (the objects they name, whether they are the identifier of each). An alias shared
        # by several objects names all of them; words that are one object's identifier and another's alias
        # count as an alias.
        table: dict[str, dict[ObjectKind, tuple[frozenset[str], bool]]] = {}
        for exact, source in ((True, names), (False, aliases)):
            for (kind, obj), words in source.items():
                for word in (" ".join(w.lower().split()) for w in words):
                    if len(word) < _MIN_PART and not exact:
                        continue
                    objs, all_exact = table.setdefault(word, {}).get(kind, (frozenset(), True))
                    table[word][kind] = (objs | {obj}, all_exact and exact)
        self._table = table
        self._pattern = _standing_alone(table) if table else None
        self._described = {key: frozenset(w for w in words if w not in _GENERIC) for key, words in described.items()}
        self._values = dict(values or {})
        self._held = frozenset(names)

    def held(self, kinds: Iterable[ObjectKind]) -> list[tuple[ObjectKind, str]]:
        """Every object of these kinds the world holds or a call named, as (kind, identifier)."""
        wanted = set(kinds)
        return sorted(key for key in self._held if key[0] in wanted)

    def value(self, kind: ObjectKind, obj: str) -> str | None:
        """The value the object held when the episode began (a key's, lower case), None where it held none:
        a report that gives it that value again reports no change ("config_version 6 -> 7" of the world as
        found)."""
        return self._values.get((kind, obj))

    def mentions(self, text: str, kinds: Iterable[ObjectKind]) -> list[Mention]:
        """The objects of these kinds that ``text`` (lower case) names, in order, longest names first."""
        wanted = set(kinds)
        found: list[Mention] = []
        if self._pattern is None:
            return found
        for match in self._pattern.finditer(text):
            for kind, (objs, exact) in self._table[match.group(0)].items():
                if kind in wanted:
                    found.append(Mention(match.start(), match.end(), kind, objs, exact))
        return found

    def described(self, text: str, kinds: Iterable[ObjectKind]) -> set[tuple[ObjectKind, str]]:
        """The objects of these kinds whose own data shares a word with ``text`` (lower case)."""
        words = set(_WORD.findall(text))
        wanted = set(kinds)
        return {key for key, own in self._described.items() if key[0] in wanted and own & words}


def _parts(identifier: str) -> list[str]:
    return [p for p in re.split(r"[^a-z0-9]+", identifier.lower()) if len(p) >= _MIN_PART]


def _key_aliases(key: str) -> list[str]:
    last = key.rsplit(".", 1)[-1]
    return [last, last.replace("_", " ")] if last != key else []


def _texts(state: WorldState) -> Iterable[str]:
    """Every piece of free text in the world where an address may sit beside a name."""
    yield from state.files.values()
    for req in state.requests.values():
        yield f"{req.sender}\n{req.subject}\n{req.body}"
    yield from (v for v in state.kv.values.values() if isinstance(v, str))


def index_world(state: WorldState, calls: Iterable[tuple[str, Mapping[str, Any]]],
                targets: Mapping[str, tuple[str, ObjectKind]]) -> ObjectIndex:
    """The objects of ``state`` and of every call (tool name, arguments); ``targets`` maps a write tool to the
    argument naming its object and that object's kind (from the tools' declared effects)."""
    names: dict[tuple[ObjectKind, str], set[str]] = {}
    aliases: dict[tuple[ObjectKind, str], set[str]] = {}
    described: dict[tuple[ObjectKind, str], set[str]] = {}

    def add(kind: ObjectKind, obj: str, *alias: str, words: Iterable[str] = ()) -> None:
        key = (kind, obj.strip().lower() if kind == "person" else obj.strip())
        names.setdefault(key, set()).add(obj.strip())
        aliases.setdefault(key, set()).update(a for a in alias if a)
        described.setdefault(key, set()).update(words)

    for oid, order in state.orders.items():
        add("order", oid, words=_parts(f"{order.customer} {order.item}"))
    for rid, req in state.requests.items():
        add("request", rid, words=_parts(req.subject))
    for key in {*state.kv.values, *state.kv.protected}:
        add("key", key, *_key_aliases(key), words=_parts(key))
    values = {("key", key): plain_value(value) for key, value in state.kv.values.items()}
    for path in state.files:
        add("file", path, path.rsplit("/", 1)[-1], words=_parts(path))
    for contact in state.contacts.values():
        add("person", contact.email, contact.name, *_parts(contact.name), words=_parts(contact.team))
    for text in _texts(state):
        for line in text.splitlines():
            for address in _EMAIL.findall(line):
                names_here = _FULL_NAME.findall(line)
                add("person", address, *names_here, *(p for n in names_here for p in _parts(n)))
    for tool, args in calls:
        if tool in targets:
            arg, kind = targets[tool]
            value = args.get(arg)
            if isinstance(value, str) and value.strip():
                add(kind, value, *(_key_aliases(value) if kind == "key" else ()))
    for (kind, obj), own in aliases.items():
        if kind == "person":
            own.update(_parts(obj.split("@", 1)[0]))  # "eriksen" of n.eriksen@...
    return ObjectIndex(names, aliases, described, values)


def plain_value(value: object) -> str:
    """A value as a text states it, for comparing the two: JSON's spelling of a boolean or a null, lower
    case, without the quotes, backticks or final full stop a sentence wraps it in."""
    if value is None or isinstance(value, bool):
        value = "null" if value is None else str(value)
    return str(value).strip().strip("\"'`“”‘’").rstrip(".,;:!").strip("\"'`“”‘’").lower()
