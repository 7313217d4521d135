"""Deterministic haystacks for the long-context tasks: seeded filler prose with needles placed at depths.

A document is a pure function of ``HAYSTACK_VERSION`` and a :class:`HaystackSpec`: the same spec gives the
same bytes on every machine and every Python version, because the randomness comes from SHA-256 in counter
mode (not from ``random``, whose algorithms may change between releases). Any change to the word banks, the
templates or the assembly changes documents, so it must bump ``HAYSTACK_VERSION``; the long_context module
puts that version into its own, and so into every task hash, which makes old results of changed tasks rerun.

Each document opens with a line that starts with a digest of the version and the seed, so two tasks never
share a prompt prefix (a server's prefix cache cannot carry one task's prefill over into another) while the
trials of one task do.

Filler is written so that it never says anything a question could be about: no personal names, no proper
place names, no number above two digits, no "code", "owner" or assignment. The needles (and, for the
variable chain, the generated assignments) are the only places where an answer can come from.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeVar

HAYSTACK_VERSION = "1"

Style = Literal["prose", "meeting"]
T = TypeVar("T")


class SeededStream:
    """A reproducible stream of integers: SHA-256 of (seed, counter), consumed eight bytes at a time."""

    def __init__(self, seed: str) -> None:
        self._seed = seed.encode("utf-8")
        self._counter = 0
        self._buffer = b""

    def _take(self, n: int) -> bytes:
        while len(self._buffer) < n:
            block = hashlib.sha256(self._seed + b"\x00" + self._counter.to_bytes(8, "big")).digest()
            self._buffer += block
            self._counter += 1
        out, self._buffer = self._buffer[:n], self._buffer[n:]
        return out

    def below(self, n: int) -> int:
        """A uniform integer in [0, n), by rejection so that no value is favoured."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        span = 1 << 64
        limit = span - span % n
        while True:
            x = int.from_bytes(self._take(8), "big")
            if x < limit:
                return x % n

    def between(self, lo: int, hi: int) -> int:
        """A uniform integer in [lo, hi]."""
        return lo + self.below(hi - lo + 1)

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]


# --------------------------------------------------------------------------------------------------------
# Word banks and templates. Written for this bench; nothing here may name a person, a real place, a code,
# an owner or a value (see the module docstring).

_ADJ = ("quiet", "weathered", "narrow", "pale", "crooked", "damp", "sheltered", "faded", "uneven", "broad",
        "shallow", "steep", "mossy", "salt-stained", "sunlit", "grey", "hollow", "low", "tidy", "overgrown",
        "windswept", "muddy", "patched", "silvery")
_NOUN = ("path", "fence", "hedge", "boathouse", "ridge", "culvert", "orchard", "footbridge", "reed bed",
         "stone wall", "lantern post", "ferry ramp", "drainage ditch", "sheep pen", "tide pool", "hay barn",
         "signal mast", "garden plot", "bell tower", "willow", "rope shed", "slipway", "gate", "cairn")
_PLACE = ("the north slope", "the lower meadow", "the old quarry", "the harbour wall", "the mill race",
          "the dune line", "the ferry landing", "the chapel yard", "the upper pasture", "the pine belt",
          "the salt marsh", "the river bend", "the lighthouse steps", "the kelp beds", "the sheep fold",
          "the east headland", "the peat cuttings", "the net lofts")
_VERB = ("settled", "dried out", "shifted", "flooded", "leaned", "cracked", "drifted", "faded", "sagged",
         "recovered", "softened", "thickened", "crumbled", "greened over")
_TIME = ("by late afternoon", "after the first frost", "during the long wet week", "before the spring tides",
         "at first light", "once the wind dropped", "over the following days", "toward the end of the season",
         "in the grey hour before supper", "after the equinox gales")
_OBSERVER = ("the survey crew", "the volunteers", "a passing walker", "the night watch", "the boat crew",
             "the apprentice", "the warden", "the caretaker", "the ferry hand", "the shepherd")
_ANIMAL = ("gulls", "hares", "starlings", "otters", "curlews", "rooks", "swallows", "moths", "oystercatchers",
           "seals", "wrens", "terns")
_MANNER = ("slowly", "without much fuss", "more than expected", "a little each day", "unevenly", "in patches",
           "quietly", "all at once")
_WEATHER = ("a cold drizzle", "a steady westerly", "thin sea fog", "bright dry air", "a heavy swell",
            "a warm still evening", "sleet from the north", "a low rolling mist")
_SMELL = ("seaweed", "wet wool", "woodsmoke", "cut hay", "tar", "crushed mint", "rain on slate")

_PROSE = (
    "{Time}, the {adj} {noun} by {place} {verb} {manner}.",
    "{Observer} noted that the {noun} near {place} looked {adj} again.",
    "{Animal} gathered along {place} while {weather} rolled in from the sea.",
    "Nobody could say why the {noun} had {verb} {manner}, but {observer} kept an eye on it.",
    "The entry for that day mentions {weather} and a {adj} {noun} that needed a second look.",
    "{Observer} walked from {place} to {place2} and counted {small} {animal} on the way.",
    "It was left to the next season to decide what to do about the {adj} {noun}.",
    "By the old reckoning, it was near {place} that the {noun} first {verb}.",
    "{Weather} kept {observer} indoors, so the notes for {place} are short.",
    "The {noun} and the {noun2} were both {adj} that year, which surprised no one.",
    "A drawing in the margin shows the {noun} with {small} {animal} perched on it.",
    "Further along {place}, the ground was {adj} and smelled of {smell}.",
    "{Observer} repaired part of the {noun} {time}, using timber from {place}.",
    "The tide reached {place} twice that week, and the {noun} {verb} {manner}.",
)

_TOPIC = ("office move", "printer budget", "holiday rota", "newsletter layout", "room booking system",
          "coffee supplier", "intranet search", "parking permits", "team offsite", "badge readers",
          "meeting room screens", "recycling bins", "desk plan", "fire drill schedule", "visitor policy",
          "canteen menu", "bike shed", "quarterly survey")
_GROUP = ("facilities team", "design group", "finance office", "night shift", "front desk", "interns",
          "support desk", "print room")

_MEETING = (
    "The {topic} figures look steadier than they did last month.",
    "I'm not convinced the {topic} timeline is realistic yet.",
    "Can we come back to the {topic} once we have the survey results?",
    "Agreed, the {topic} discussion can wait for the next session.",
    "From what I saw, the {topic} feedback was mostly positive.",
    "We heard the same concern about the {topic} from the {group}.",
    "Let's keep the {topic} notes short this time.",
    "I'd rather see the {topic} numbers before we commit to anything.",
    "That matches what the {group} said about the {topic}.",
    "The {topic} slides still need a clearer summary at the top.",
    "Good point. The {topic} question keeps coming up.",
    "The {topic} review ran long last time, so let's be quick.",
    "Does anyone know if the {group} has looked at the {topic}?",
    "Honestly the {topic} is fine as it is for now.",
    "Two people from the {group} asked about the {topic} this week.",
    "I think the {topic} and the {topic2} are connected somehow.",
)

_LETTERS = "BCDFGHJKLMNPQRSTVWXZ"


def _fill(template: str, rng: SeededStream) -> str:
    values = {
        "adj": rng.choice(_ADJ), "noun": rng.choice(_NOUN), "noun2": rng.choice(_NOUN),
        "place": rng.choice(_PLACE), "place2": rng.choice(_PLACE), "verb": rng.choice(_VERB),
        "time": rng.choice(_TIME), "observer": rng.choice(_OBSERVER), "animal": rng.choice(_ANIMAL),
        "manner": rng.choice(_MANNER), "weather": rng.choice(_WEATHER), "smell": rng.choice(_SMELL),
        "small": str(rng.between(2, 40)), "topic": rng.choice(_TOPIC), "topic2": rng.choice(_TOPIC),
        "group": rng.choice(_GROUP),
    }
    capitalised = {k.capitalize(): v[0].upper() + v[1:] for k, v in values.items()}
    return template.format(**values, **capitalised)


# --------------------------------------------------------------------------------------------------------
# Specs and the built document


@dataclass(frozen=True)
class Insert:
    """A needle: text placed at a relative depth (0 = top, 1 = bottom) of the filler."""

    at: float
    text: str


@dataclass(frozen=True)
class ChainSpec:
    """A generated variable chain: ``hops`` copies from a root number, plus decoy chains of given lengths."""

    hops: int
    decoys: tuple[int, ...] = ()
    span: tuple[float, float] = (0.02, 0.98)


@dataclass(frozen=True)
class HaystackSpec:
    seed: str
    title: str
    filler_tokens: int
    style: Style = "prose"
    speakers: tuple[str, ...] = ()
    inserts: tuple[Insert, ...] = ()
    chain: ChainSpec | None = None


@dataclass(frozen=True)
class Chain:
    """What the generated chain is: the variable asked about, its value, and the decoys' roots."""

    final: str
    value: str
    names: tuple[str, ...]
    decoy_roots: dict[str, str] = field(default_factory=dict)  # root value -> last variable of that decoy


@dataclass(frozen=True)
class Haystack:
    text: str
    prefix: str
    chain: Chain | None = None


def estimate_tokens(text: str) -> int:
    """The same generous estimate as ``engine.episodes.base``: three characters a token."""
    return len(text) // 3 + 1


def document_prefix(seed: str) -> str:
    """The opening of a document: unique per (version, seed)."""
    return hashlib.sha256(f"haystack/{HAYSTACK_VERSION}/{seed}".encode()).hexdigest()[:12]


def _prose_units(rng: SeededStream, budget_chars: int) -> list[list[str]]:
    paragraphs: list[list[str]] = []
    used = 0
    while used < budget_chars:
        sentences = [_fill(rng.choice(_PROSE), rng) for _ in range(rng.between(4, 7))]
        used += sum(len(s) + 1 for s in sentences) + 1
        paragraphs.append(sentences)
    return paragraphs


def _meeting_lines(rng: SeededStream, budget_chars: int, speakers: Sequence[str]) -> list[str]:
    lines: list[str] = []
    used = 0
    previous = ""
    while used < budget_chars:
        speaker = rng.choice([s for s in speakers if s != previous] or list(speakers))
        previous = speaker
        picks = [rng.choice(_MEETING)]
        if rng.below(2):
            picks.append(rng.choice([t for t in _MEETING if t != picks[0]]))
        said = " ".join(_fill(t, rng) for t in picks)
        line = f"{speaker}: {said}"
        used += len(line) + 14
        lines.append(line)
    return lines


def _chain(spec: ChainSpec, rng: SeededStream) -> tuple[Chain, list[Insert]]:
    """Assignments ``Set VAR_X = <number>.`` then ``Set VAR_Y = VAR_X.`` …, each variable assigned once."""
    names: set[str] = set()
    values: set[str] = set()

    def new_name() -> str:
        while True:
            name = "VAR_" + "".join(rng.choice(_LETTERS) for _ in range(5))
            if name not in names:
                names.add(name)
                return name

    def new_value() -> str:
        while True:
            value = str(rng.between(10000, 99999))
            if value not in values:
                values.add(value)
                return value

    lo, hi = spec.span
    inserts: list[Insert] = []
    main = [new_name() for _ in range(spec.hops + 1)]
    root = new_value()
    for i, name in enumerate(main):
        source = root if i == 0 else main[i - 1]
        depth = lo + (hi - lo) * (i + rng.below(600) / 1000) / (len(main))
        inserts.append(Insert(at=depth, text=f"Set {name} = {source}."))
    decoy_roots: dict[str, str] = {}
    for d, length in enumerate(spec.decoys):
        chain = [new_name() for _ in range(length + 1)]
        if d == 0:
            # The first decoy ends in a near twin of the asked variable (its last two letters swapped).
            twin = main[-1][:-2] + main[-1][-1] + main[-1][-2]
            if twin != main[-1] and twin not in names:
                names.discard(chain[-1])
                names.add(twin)
                chain[-1] = twin
        value = new_value()
        decoy_roots[value] = chain[-1]
        points = sorted(lo + (hi - lo) * rng.below(1000) / 1000 for _ in chain)
        for i, (name, depth) in enumerate(zip(chain, points, strict=True)):
            source = value if i == 0 else chain[i - 1]
            inserts.append(Insert(at=depth, text=f"Set {name} = {source}."))
    return Chain(final=main[-1], value=root, names=tuple(main), decoy_roots=decoy_roots), inserts


def _place(units: list, inserts: Sequence[Insert]) -> list:
    """Put each insert at its depth in a flat list of units, keeping inserts in their own order at ties."""
    ordered = sorted(enumerate(inserts), key=lambda p: (p[1].at, p[0]))
    slots = [(min(len(units), max(0, round(ins.at * len(units)))), i, ins)
             for i, (_, ins) in enumerate(ordered)]
    out = list(units)
    for position, _, ins in sorted(slots, key=lambda s: (s[0], s[1]), reverse=True):
        out.insert(position, ins)
    return out


@functools.lru_cache(maxsize=32)
def build(spec: HaystackSpec) -> Haystack:
    """The document for ``spec``. Pure: same spec and version, same bytes.

    Cached because it is pure and costly (a 32k-token document takes a second): the bank builds every
    document to validate its task, and the module builds it again for the prompt."""
    if spec.style == "meeting" and len(spec.speakers) < 2:
        raise ValueError("a meeting transcript needs at least two speakers")
    rng = SeededStream(f"{HAYSTACK_VERSION}|filler|{spec.seed}")
    inserts = list(spec.inserts)
    chain: Chain | None = None
    if spec.chain is not None:
        chain, extra = _chain(spec.chain, SeededStream(f"{HAYSTACK_VERSION}|chain|{spec.seed}"))
        inserts += extra
    prefix = document_prefix(spec.seed)
    budget = max(0, spec.filler_tokens * 3)
    if spec.style == "prose":
        # Needles go between sentences, so a needle reads as one more line of the notes.
        paragraphs = _prose_units(rng, budget)
        flat: list[tuple[int, str]] = [(p, s) for p, sentences in enumerate(paragraphs) for s in sentences]
        placed = _place(flat, inserts)
        out_paragraphs: list[list[str]] = [[] for _ in paragraphs]
        last = 0
        for unit in placed:
            if isinstance(unit, Insert):
                out_paragraphs[last].append(unit.text.strip())
            else:
                last = unit[0]
                out_paragraphs[last].append(unit[1])
        body = "\n\n".join(" ".join(p) for p in out_paragraphs if p)
    else:
        lines = _meeting_lines(rng, budget, spec.speakers)
        placed_lines = _place(lines, inserts)
        stamped = []
        seconds = 9 * 3600 + rng.between(0, 1800)
        for unit in placed_lines:
            texts = unit.text.strip().splitlines() if isinstance(unit, Insert) else [unit]
            for text in texts:
                seconds += rng.between(6, 45)
                h, m, s = seconds // 3600, seconds // 60 % 60, seconds % 60
                stamped.append(f"[{h:02d}:{m:02d}:{s:02d}] {text.strip()}")
        body = "\n".join(stamped)
    text = f"{prefix} · {spec.title}\n\n{body}\n"
    return Haystack(text=text, prefix=prefix, chain=chain)


def filler_only(spec: HaystackSpec) -> str:
    """The same document without needles or chain: what a question must not be answerable from."""
    bare = HaystackSpec(seed=spec.seed, title=spec.title, filler_tokens=spec.filler_tokens, style=spec.style,
                        speakers=spec.speakers)
    return build(bare).text
