"""Hostile inputs for every regex that reads untrusted text, and a probe that times them.

The regexes are found, not listed: every compiled pattern in the globals of the modules below and
every literal pattern passed to a `re` function in their source. A hand-kept list would miss the
next regex someone adds.

For each pattern the attacks are built from its own syntax: for every repetition in it, a string
that matches everything before the repetition, then the repetition's body pumped many times, then
a character that makes the match fail — the shape that makes a backtracking engine try every way
to split the pumped part. A fixed list of pumps (spaces, punctuation, markup) is tried too.

Run as `python -m tests.unit.redos_attacks SIZE [FIRST]`: prints `start N` before each
pattern, `tick` after each of its attacks and `done N SECONDS` (its slowest attack, in CPU
seconds) at its end, so a parent can time each attack and kill the process when one never
returns (the `re` engine cannot be interrupted from inside).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
import sys
import time
from collections.abc import Iterator
from re import _constants as c  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]

# Packages whose modules (subpackages included) read text or bytes that came from an upload.
UNTRUSTED_TEXT_PACKAGES = ("citeproof.parser",)
_RE_FUNCTIONS = {"compile", "search", "match", "fullmatch", "findall", "finditer", "split", "sub"}
# Where the flags argument sits when passed positionally.
_FLAGS_POSITION = {"compile": 1, "sub": 4, "split": 3}
_PUMP_START, _PUMP_END = "\ue000", "\ue001"
_FAIL_SUFFIXES = ("!", "\x00", "\n", "")
_GENERIC_PUMPS = (
    " ", "\t", "\n", " \n", "\n\n", "a", "A", "1", ".", "a ", "A. ", "Ab ", "1 ", "1.", "1-",
    "-", "--", "a-", "<", "<!--", "-->", "<!---->", "<a>", "[", "[1", "[1,", "(", "(a", "(1",
    "a,", ", ", "et al. ", "10.1/", "&", "'", '"', "\u00a0", "...", "a.b", "A, B. ", "http://",
)  # fmt: skip


def _modules() -> Iterator[object]:
    for package_name in UNTRUSTED_TEXT_PACKAGES:
        package = importlib.import_module(package_name)
        yield package
        for info in pkgutil.walk_packages(package.__path__, prefix=f"{package_name}."):
            if not info.name.endswith(".__main__"):
                yield importlib.import_module(info.name)


# Superlinear on 64 KiB of hostile text, with the reason that is tolerated (an input bound
# enforced before the regex, with its test). Empty: every regex of the parser is linear on the
# 64 KiB attacks. The 64 KiB probe skips the ones listed here and fails when an entry no longer
# names a pattern.
KNOWN_SUPERLINEAR_AT_64KIB: dict[str, str] = {}
_ANCHORED_CALLS = {"match", "fullmatch"}


def _call_mode(node: ast.Call, first_text_argument: int) -> str:
    """ "anchored" for match()/fullmatch() at the start of the text, "search" for anything that
    tries every position (search, finditer, sub, split, or match() with a moving `pos`)."""
    assert isinstance(node.func, ast.Attribute)
    if node.func.attr in _ANCHORED_CALLS and len(node.args) <= first_text_argument + 1:
        if not any(k.arg == "pos" for k in node.keywords):
            return "anchored"
    return "search"


def _literal_patterns(tree: ast.AST) -> Iterator[tuple[str | bytes, int, str]]:
    """Patterns written as literals in calls like re.search(r"...", text): (pattern, flags,
    mode)."""
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "re"
            and node.func.attr in _RE_FUNCTIONS
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str | bytes)
        ):
            continue
        flags_node = next((k.value for k in node.keywords if k.arg == "flags"), None)
        position = _FLAGS_POSITION.get(node.func.attr, 2)
        if flags_node is None and len(node.args) > position:
            flags_node = node.args[position]
        flags = 0
        if flags_node is not None:
            flags = int(eval(compile(ast.Expression(flags_node), "<flags>", "eval"), {"re": re}))
        mode = "search" if node.func.attr == "compile" else _call_mode(node, 1)
        yield node.args[0].value, flags, mode


def _name_modes(trees: list[ast.AST]) -> dict[str, set[str]]:
    """How each name is called as a pattern (`NAME.match(text)`, `NAME.sub(...)`), everywhere."""
    modes: dict[str, set[str]] = {}
    for tree in trees:
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.attr in _RE_FUNCTIONS - {"compile"}
            ):
                modes.setdefault(node.func.value.id, set()).add(_call_mode(node, 0))
    return modes


def untrusted_patterns() -> list[tuple[str, re.Pattern, str]]:
    """(where, pattern, mode) for each distinct regex of the untrusted-text modules, in a stable
    order. The mode is "anchored" when every call applies it at the start of the text only;
    a pattern passed around or called any other way is probed as "search"."""
    modules = list(_modules())
    trees = [ast.parse(inspect.getsource(module)) for module in modules]  # type: ignore[arg-type]
    name_modes = _name_modes(trees)
    found: dict[tuple[object, int], tuple[str, re.Pattern, str]] = {}
    for module, tree in zip(modules, trees, strict=True):
        name = module.__name__  # type: ignore[attr-defined]
        for attr, value in sorted(vars(module).items()):
            values = value if isinstance(value, tuple | list) else (value,)
            for item in values:
                if isinstance(item, re.Pattern):
                    mode = "anchored" if name_modes.get(attr) == {"anchored"} else "search"
                    found.setdefault((item.pattern, item.flags), (f"{name}.{attr}", item, mode))
        for pattern, flags, mode in _literal_patterns(tree):
            compiled = re.compile(pattern, flags)
            key = (compiled.pattern, compiled.flags)
            found.setdefault(key, (f"{name} (inline)", compiled, mode))
    return sorted(found.values(), key=lambda item: (item[0], str(item[1].pattern)))


# --- attack strings built from a pattern's syntax tree ---------------------------------------

_CATEGORY_EXAMPLES = {
    c.CATEGORY_DIGIT: "0",
    c.CATEGORY_NOT_DIGIT: "a",
    c.CATEGORY_SPACE: " ",
    c.CATEGORY_NOT_SPACE: "a",
    c.CATEGORY_WORD: "a",
    c.CATEGORY_NOT_WORD: " ",
    c.CATEGORY_LINEBREAK: "\n",
    c.CATEGORY_NOT_LINEBREAK: "a",
}
_CANDIDATES = "a0 .-,(<[\n/xZ9;:'\"&"


def _class_example(items: list) -> str:
    if items and items[0][0] is c.NEGATE:
        probe = re.compile(_class_source(items))
        return next((ch for ch in _CANDIDATES if probe.fullmatch(ch)), "\u2603")
    op, av = items[0]
    if op is c.LITERAL:
        return chr(av)
    if op is c.RANGE:
        return chr(av[0])
    if op is c.CATEGORY:
        return _CATEGORY_EXAMPLES.get(av, "a")
    return "a"


def _class_source(items: list) -> str:
    """A character class back in regex syntax, to test candidates against a negated one."""
    parts = []
    for op, av in items:
        if op is c.NEGATE:
            parts.append("^")
        elif op is c.LITERAL:
            parts.append(re.escape(chr(av)))
        elif op is c.RANGE:
            parts.append(f"{re.escape(chr(av[0]))}-{re.escape(chr(av[1]))}")
        elif op is c.CATEGORY:
            parts.append(
                {
                    c.CATEGORY_DIGIT: r"\d",
                    c.CATEGORY_NOT_DIGIT: r"\D",
                    c.CATEGORY_SPACE: r"\s",
                    c.CATEGORY_NOT_SPACE: r"\S",
                    c.CATEGORY_WORD: r"\w",
                    c.CATEGORY_NOT_WORD: r"\W",
                }.get(av, "")
            )
    return "[" + "".join(parts) + "]"


def _contains(items: list, target: object) -> bool:
    for op, av in items:
        if av is target:
            return True
        for child in _children(op, av):
            if _contains(child, target):
                return True
    return False


def _children(op: object, av: object) -> list[list]:
    if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
        return [list(av[2])]
    if op is c.SUBPATTERN:
        return [list(av[3])]
    if op is c.ATOMIC_GROUP:
        return [list(av)]
    if op is c.BRANCH:
        return [list(alt) for alt in av[1]]
    if op is c.GROUPREF_EXISTS:
        return [list(av[1])] + ([list(av[2])] if av[2] is not None else [])
    return []


def _example(items: list, target: object) -> str:
    """A string matching `items`, with the repetition `target` wrapped in pump markers."""
    out = []
    for op, av in items:
        if op is c.LITERAL:
            out.append(chr(av))
        elif op is c.NOT_LITERAL:
            out.append("b" if av == ord("a") else "a")
        elif op is c.ANY:
            out.append("a")
        elif op is c.IN:
            out.append(_class_example(list(av)))
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            low, _high, body = av
            body_text = _example(list(body), target)
            if av is target:
                out.append(_PUMP_START + (body_text or "a") + _PUMP_END)
            elif _contains(list(body), target):
                out.append(body_text)
            else:
                out.append(body_text * low)
        elif op in (c.SUBPATTERN, c.ATOMIC_GROUP, c.BRANCH, c.GROUPREF_EXISTS):
            children = _children(op, av)
            chosen = next((ch for ch in children if _contains(ch, target)), children[0])
            out.append(_example(chosen, target))
        # Anchors, lookarounds and back-references add no characters of their own.
    return "".join(out)


def _repeats(items: list) -> Iterator[object]:
    for op, av in items:
        if op in (c.MAX_REPEAT, c.MIN_REPEAT) and av[1] > 1:
            yield av
        for child in _children(op, av):
            yield from _repeats(child)


def attacks(pattern: re.Pattern, size: int) -> Iterator[str | bytes]:
    """Hostile strings of about `size` characters for `pattern`."""
    source = pattern.pattern
    text_source = source.decode("latin-1") if isinstance(source, bytes) else source
    tree = list(_parser.parse(text_source, pattern.flags & ~re.LOCALE))
    strings: list[str] = []
    for repeat in _repeats(tree):
        sample = _example(tree, repeat)
        prefix, rest = sample.split(_PUMP_START, 1)
        body = rest.split(_PUMP_END, 1)[0].replace(_PUMP_START, "").replace(_PUMP_END, "")
        pumped = prefix + body * max(1, (size - len(prefix)) // max(1, len(body)))
        strings.extend(pumped[:size] + suffix for suffix in _FAIL_SUFFIXES)
    strings.extend((pump * (size // len(pump) + 1))[:size] + "!" for pump in _GENERIC_PUMPS)
    for text in dict.fromkeys(strings):
        if isinstance(source, bytes):
            yield text.encode("utf-8")
        else:
            yield text


# Inputs up to this size are tried on every pattern; larger ones skip the known superlinear.
SMALL_INPUT_BYTES = 300


def _run(size: int, first: int) -> None:
    """Print `start N` before each pattern and `done N SECONDS` with its slowest attack."""
    for index, (where, pattern, mode) in enumerate(untrusted_patterns()):
        if index < first or (size > SMALL_INPUT_BYTES and where in KNOWN_SUPERLINEAR_AT_64KIB):
            continue
        print(f"start {index}", flush=True)
        slowest = 0.0
        for text in attacks(pattern, size):
            # CPU time, not wall time: a busy machine must not make a linear pattern look slow.
            started = time.process_time()
            if mode == "anchored":
                pattern.match(text)
            else:
                for _ in pattern.finditer(text):
                    pass
            slowest = max(slowest, time.process_time() - started)
            print("tick", flush=True)
        print(f"done {index} {slowest:.4f}", flush=True)


if __name__ == "__main__":
    _run(int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 0)
