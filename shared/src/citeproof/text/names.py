"""Person and organisation names as they appear in reference entries and citation markers."""

from __future__ import annotations

import re

from citeproof.text.normalize import fold_diacritics

# Lower-case particles that belong to a surname ("van Zuylen", "de la Cruz").
SURNAME_PARTICLES = frozenset(
    "van von der den de del della di da dos das du la le ten ter zu al el bin ibn".split()
)
# A sentence may open with a surname's particles ("van Dijk (2021) observed ...", "de la Cruz
# and Øberg (2020) reported ..."): up to three of them, then the capitalised name.
_PARTICLES_BEFORE_NAME = re.compile(
    r"(?:(?:" + "|".join(sorted(SURNAME_PARTICLES, key=len, reverse=True)) + r")[ \t\n]+){1,3}"
)


def opens_with_particle_surname(text: str, position: int = 0) -> bool:
    """``text`` at ``position`` opens with a surname led by lower-case particles ("van Dijk",
    "de la Cruz"): it opens a sentence as a capital does, though its first letter is small."""
    match = _PARTICLES_BEFORE_NAME.match(text, position)
    return match is not None and match.end() < len(text) and text[match.end()].isupper()


# Generational suffixes printed after a surname ("Daumé III", "King Jr.").
NAME_SUFFIXES = frozenset("jr jr. sr sr. ii iii iv".split())
# Words that mark an author as an organisation rather than a person.
ORGANISATION_WORDS = frozenset(
    """organization organisation association institute institution agency committee group
    council society university foundation consortium team project ministry department office
    bureau centre center commission authority board federation union network collaboration
    corporation inc ltd company academy service services administration nations program
    programme""".split()
)

# "J.", "J", "J.-P.", "Ch.", "JR": an initial has a dot, or is one to three capitals.
_INITIAL = re.compile(r"^(?:(?:[A-Z]|[A-Z][a-z])\.-?)+$|^(?:[A-Z]\.?-?)+$|^[A-Z]{1,3}$")
_NON_LETTERS = re.compile(r"[^a-z]+")


def name_key(name: str) -> str:
    """Comparison form of a name: ASCII letters only, lower case ("Daumé" -> "daume")."""
    return _NON_LETTERS.sub("", fold_diacritics(name).lower())


def is_initial(token: str) -> bool:
    """ "J.", "J", "J.-P.", "Ch.", "JR", "É" - a given-name initial rather than a surname."""
    return bool(_INITIAL.match(fold_diacritics(token.strip(","))))


def is_organisation(name: str) -> bool:
    return any(name_key(word) in ORGANISATION_WORDS for word in name.split())


def surname_of(person: str) -> str:
    """The surname of one author as printed: "Hal Daumé III" -> "Daumé", "Smith, J." -> "Smith".

    Organisations are returned whole.
    """
    person = person.strip().strip(",;.")
    if not person:
        return ""
    if "," in person:
        # "Surname, Given" order, unless the part after the comma is a suffix ("King, Jr.").
        head, _, tail = person.partition(",")
        if head.strip() and tail.strip().lower().strip(".") not in NAME_SUFFIXES:
            words = head.split()
            while len(words) > 1 and words[-1].lower().strip(".") in NAME_SUFFIXES:
                # "Daumé III, Hal": the suffix is not part of the surname.
                words.pop()
            return " ".join(words)
        person = head
    if is_organisation(person):
        return person
    tokens = [token for token in person.split() if token]
    while len(tokens) > 1 and tokens[-1].lower().strip(",") in NAME_SUFFIXES:
        tokens.pop()
    if len(tokens) > 1 and all(is_initial(t) for t in tokens[1:]) and not is_initial(tokens[0]):
        # "Smith J" / "Smith JR" (Vancouver order without comma).
        return tokens[0]
    if len(tokens) > 2 and is_initial(tokens[-1]) and not is_initial(tokens[0]):
        # "de la Cruz É", "van Dijk PJ", "García Márquez G": a longer surname, then initials.
        while len(tokens) > 1 and is_initial(tokens[-1]):
            tokens.pop()
        return " ".join(tokens)
    initials = 0
    while initials < len(tokens) - 1 and is_initial(tokens[initials]):
        initials += 1
    if 0 < initials < len(tokens) - 1:
        # "É. Sánchez Vidal", "A. B. García Márquez": after the initials, all is the surname
        # (a compound without its hyphen; particles come along, "J. van Dijk").
        return " ".join(tokens[initials:]).strip(".")
    surname_tokens = [tokens[-1]]
    position = len(tokens) - 2
    while position >= 0 and tokens[position].lower() in SURNAME_PARTICLES:
        surname_tokens.insert(0, tokens[position])
        position -= 1
    return " ".join(surname_tokens).strip(".")


def surname_keys(surname: str) -> set[str]:
    """Keys a marker may use for one surname: whole, without particles, last word."""
    keys = {name_key(surname)}
    words = surname.split()
    while len(words) > 1 and words[-1].lower().strip(",") in NAME_SUFFIXES:
        # "Daumé III" is cited as "Daumé" as often as in full.
        words.pop()
        keys.add(name_key(" ".join(words)))
    if len(words) > 1:
        keys.add(name_key(" ".join(w for w in words if w.lower() not in SURNAME_PARTICLES)))
        keys.add(name_key(words[-1]))
    keys.discard("")
    return keys
