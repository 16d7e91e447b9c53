#!/usr/bin/env python3
"""Generates native/common/unicode_tables.inc from Python's unicodedata (the Unicode version of
the Python that runs it; the generated file records it).

The tables, all sorted by code point and searched by binary search (native/common/unicode.cc):
  - kToUpper, kToLower: the simple (one code point to one code point) case mappings of
    UnicodeData.txt (fields 12 and 13).
  - kTitleExceptions: code points whose simple titlecase mapping (field 14) differs from their
    simple uppercase mapping (the digraphs DŽ, LJ, NJ, DZ and Georgian Mkhedruli).
  - kFoldOrbit: the case-folding orbits of CaseFolding.txt's simple folding (statuses C and S):
    code points that fold to the same code point form an orbit, and the table maps each member
    to the next one (the last to the first), so that a case-insensitive regular expression can
    list every case variant of a character (k, K and the Kelvin sign K).
  - kCategories: the general category of every code point, one entry per run of equal
    category: (first code point << 5) | category index.

Python exposes full case mappings (str.upper, str.lower, str.title, str.casefold: SpecialCasing
and CaseFolding status F applied); the simple ones are recovered from them:
  - simple uppercase: str.upper() when it is one code point; otherwise the titlecase when that
    is one code point (U+1FB3 GREEK SMALL LETTER ALPHA WITH YPOGEGRAMMENI: full upper "ΑΙ",
    simple upper = simple title = U+1FBC); otherwise none (ß, ŉ, ǰ, the ligatures ﬀ-ﬆ...).
  - simple lowercase: str.lower() is one code point for every code point but U+0130 (LATIN
    CAPITAL LETTER I WITH DOT ABOVE, full lowercase "i̇"), whose simple lowercase is U+0069 "i",
    the first code point of the full mapping (checked below).
  - simple titlecase: str.title() when it is one code point, otherwise none.
  - simple case folding: str.casefold() when it is one code point (status C); otherwise the
    simple lowercase when that folds fully to the same string (status S: ẞ -> ß, ᾈ -> ᾀ);
    otherwise none (ß, İ).

Usage: python3 scripts/gen_unicode_tables.py > native/common/unicode_tables.inc
"""

import bisect
import sys
import unicodedata

MAX_CP = 0x10FFFF

# The general categories in the order of the C++ enum UnicodeCategory (unicode.h).
CATEGORIES = [
    "Cn", "Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd", "Ps",
    "Pe", "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co",
]

# A range entry whose delta alternates: +1 at even offsets from lo, -1 at odd ones (pairs of
# orbit members next to each other, such as Ā/ā).
ALTERNATE = 1 << 30


def simple_upper(c):
    u = c.upper()
    if len(u) == 1:
        return u
    t = c.title()
    return t if len(t) == 1 else c


def simple_lower(c):
    low = c.lower()
    if len(low) == 1:
        return low
    assert ord(c) == 0x130, f"unexpected multi-code-point lowercase for U+{ord(c):04X}"
    return low[0]


def simple_title(c):
    t = c.title()
    return t if len(t) == 1 else c


def simple_fold(c):
    f = c.casefold()
    if len(f) == 1:
        return f
    low = simple_lower(c)
    if low != c and low.casefold() == f:
        return low
    return c


def code_points():
    for cp in range(MAX_CP + 1):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        yield cp, chr(cp)


def ranges(mapping):
    """Compresses {cp: target} into [lo, hi, delta, stride] entries (see CaseRange)."""
    out = []
    for cp in sorted(mapping):
        d = mapping[cp] - cp
        if out:
            last = out[-1]
            lo, hi, delta, stride = last
            if delta == ALTERNATE:
                want = 1 if (cp - lo) % 2 == 0 else -1
                if cp == hi + 1 and d == want:
                    last[1] = cp
                    continue
            elif stride == 1 and cp == hi + 1 and d == delta:
                last[1] = cp
                continue
            elif stride == 1 and lo == hi and cp == hi + 1 and delta == 1 and d == -1:
                last[1] = cp
                last[2] = ALTERNATE
                continue
            elif (stride == 2 or lo == hi) and cp == hi + 2 and d == delta:
                last[1] = cp
                last[3] = 2
                continue
        out.append([cp, cp, d, 1])
    return out


def lookup(entries, los, cp):
    """What the C++ lookup (unicode.cc) answers for cp: the mapped code point or cp."""
    i = bisect.bisect_right(los, cp) - 1
    if i < 0:
        return cp
    lo, hi, delta, stride = entries[i]
    if cp > hi:
        return cp
    if delta == ALTERNATE:
        return cp + (1 if (cp - lo) % 2 == 0 else -1)
    return cp + delta if (cp - lo) % stride == 0 else cp


def checked_ranges(mapping):
    """ranges(mapping), verified to answer mapping for every code point."""
    entries = ranges(mapping)
    los = [e[0] for e in entries]
    for cp, _ in code_points():
        got = lookup(entries, los, cp)
        assert got == mapping.get(cp, cp), f"range table wrong at U+{cp:04X}"
    return entries


def emit_table(declaration, items, out):
    """Appends `declaration = { items... };` with the items filled into lines of 100 columns."""
    out.append(f"{declaration} = {{")
    line = "   "
    for item in items:
        if len(line) + len(item) + 1 > 98:
            out.append(line)
            line = "   "
        line += " " + item
    if line.strip():
        out.append(line)
    out.append("};")
    out.append("")


def emit_ranges(name, entries, out):
    items = []
    for lo, hi, delta, stride in entries:
        d = "kAlternate" if delta == ALTERNATE else str(delta)
        items.append(f"{{0x{lo:X}, 0x{hi:X}, {d}, {stride}}},")
    emit_table(f"constexpr CaseRange {name}[]", items, out)


def main():
    upper, lower, title_exc, fold = {}, {}, {}, {}
    for cp, c in code_points():
        u, low, t = simple_upper(c), simple_lower(c), simple_title(c)
        if u != c:
            upper[cp] = ord(u)
        if low != c:
            lower[cp] = ord(low)
        if t != u:
            title_exc[cp] = ord(t)
        fold[cp] = ord(simple_fold(c))

    orbits = {}
    for cp, target in fold.items():
        orbits.setdefault(target, set()).add(cp)
    next_in_orbit = {}
    for target, members in orbits.items():
        members.add(target)
        if len(members) < 2:
            continue
        ordered = sorted(members)
        for i, cp in enumerate(ordered):
            next_in_orbit[cp] = ordered[(i + 1) % len(ordered)]

    categories = []
    prev = None
    for cp in range(MAX_CP + 1):
        cat = unicodedata.category(chr(cp))
        if cat != prev:
            categories.append((cp, CATEGORIES.index(cat)))
            prev = cat

    out = [
        "// Generated by scripts/gen_unicode_tables.py from the Unicode Character Database "
        f"{unicodedata.unidata_version}",
        "// (Python's unicodedata). Do not edit; see the script for what each table holds.",
        "// Included by native/common/unicode.cc only.",
        "",
        f'constexpr const char* kUnicodeVersion = "{unicodedata.unidata_version}";',
        "",
    ]
    upper_ranges, lower_ranges = checked_ranges(upper), checked_ranges(lower)
    fold_ranges = checked_ranges(next_in_orbit)
    emit_ranges("kToUpper", upper_ranges, out)
    emit_ranges("kToLower", lower_ranges, out)
    emit_table(
        "constexpr CodePointPair kTitleExceptions[]",
        [f"{{0x{cp:X}, 0x{title_exc[cp]:X}}}," for cp in sorted(title_exc)],
        out,
    )
    emit_ranges("kFoldOrbit", fold_ranges, out)
    out.append("// (first code point << 5) | UnicodeCategory, one entry per run of equal category.")
    emit_table(
        "constexpr uint32_t kCategories[]", [f"0x{(cp << 5) | cat:X}," for cp, cat in categories], out
    )
    sys.stdout.write("\n".join(out).rstrip("\n") + "\n")
    print(
        f"upper {len(upper_ranges)} ranges, lower {len(lower_ranges)}, title exceptions "
        f"{len(title_exc)}, fold orbit {len(fold_ranges)}, categories "
        f"{len(categories)}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
