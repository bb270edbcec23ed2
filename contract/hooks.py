"""schemathesis hooks for `make contract` (run.sh loads them with SCHEMATHESIS_HOOKS).

Every query parameter in docs/openapi.json is a plain scalar, as generators
read them best; a few rules join parameters or items and no parameter schema
can state them, so the document states them in prose:

* Search needs at least one of q, lat and lng, bbox, min_score, or province;
  lat and lng come together; radius needs them.
* bbox's minLat is at most its maxLat, and a number in exponent notation is
  within range like any other (the pattern checks ranges for decimal notation
  only).
* No item of ids, dimensions or measures is given twice.
* List with ids takes none of limit, offset, sort and order: the areas come
  in the order of ids, on one page.
* Area statistics take limit and offset with group_by=municipality only:
  only municipality groups are paged.
* simplify applies to boundaries: the GeoJSON paths take it with
  geometry=boundary only.
* At the JSON paths of List, Search and Export the 200 is JSON: each other
  representation is the operation of its own path (/v1/areas.csv). format=
  stays there, deprecated, for older clients; a format other than json
  answers as its own path does, which that path's operation describes.

Data that schemathesis generates as valid (positive) can break these rules,
and the server then rightly answers 400. This hook brings such a case within
the rules before it is sent, with the smallest change that does: it drops a
lone lat, lng or radius, adds min_score=0 (which every area meets) when no
criterion is left, clamps or swaps bbox's numbers, drops repeated items,
drops List's paging and sorting beside ids, drops the statistics' paging
but by municipality, drops simplify beside a Point geometry, and asks the JSON paths for json. Every check stays on, and negative data is
never touched (a case meant to be refused is sent as generated), but for the
JSON paths' format: a valid format's name is never what makes a case
negative, and another format's answer is described at its own path.

Requests without a valid key count against the client's keyless budget
(60 a minute, a token a second), and past it the answer is 429
too_many_unknown_keys, as the document says; schemathesis's check of a
request without Authorization wants 401 alone. With an operation for each
format there are more such requests than the budget holds in a minute, so
the hooks read the budget's RateLimit field, as a client should, and wait
for tokens before the next request when few are left.
"""

import re
import time

import schemathesis

LNG, LAT = (-180.0, 180.0), (-90.0, 90.0)


def _positive(case):
    generation = getattr(case.meta, "generation", None)
    return generation is None or str(generation.mode) == "positive"


def _present(query, name):
    return query.get(name) is not None


def _search(query):
    if _present(query, "lat") != _present(query, "lng"):
        query.pop("lat", None)
        query.pop("lng", None)
    if not _present(query, "lat"):
        query.pop("radius", None)
    if _present(query, "bbox"):
        query["bbox"] = _bbox(str(query["bbox"]))
    if not any(_present(query, n) for n in ("q", "lat", "bbox", "min_score", "province")):
        query["min_score"] = 0


def _bbox(value):
    numbers = [float(n) for n in value.split(",")]
    bounds = [LNG, LAT, LNG, LAT]
    if all(lo <= n <= hi for n, (lo, hi) in zip(numbers, bounds)) and numbers[1] <= numbers[3]:
        return value
    numbers = [min(max(n, lo), hi) for n, (lo, hi) in zip(numbers, bounds)]
    west, south, east, north = numbers
    south, north = min(south, north), max(south, north)
    return ",".join(repr(n) for n in (west, south, east, north))


def _distinct(value):
    items = []
    for item in str(value).split(","):
        if item not in items:
            items.append(item)
    return items


def _compare(query):
    if _present(query, "ids"):
        ids = _distinct(query["ids"])
        filler = 0
        while len(ids) < 2:
            filler += 1
            if f"area-{filler}" not in ids:
                ids.append(f"area-{filler}")
        query["ids"] = ",".join(ids)
    if _present(query, "dimensions"):
        query["dimensions"] = ",".join(_distinct(query["dimensions"]))


def _list(query):
    if _present(query, "ids"):
        query["ids"] = ",".join(_distinct(query["ids"]))
        for name in ("limit", "offset", "sort", "order"):
            query.pop(name, None)


def _stats(query):
    if _present(query, "measures"):
        query["measures"] = ",".join(_distinct(query["measures"]))
    if query.get("group_by") != "municipality":
        for name in ("limit", "offset"):
            query.pop(name, None)


# The paths whose format= may ask for a representation their 200 leaves to
# another operation; Search's rules hold at each of its paths.
JSON_PATHS = ("/v1/areas", "/v1/areas/search", "/v1/areas/export")
SEARCH_PATHS = ("/v1/areas/search", "/v1/areas/search.csv", "/v1/areas/search.geojson")
LIST_PATHS = ("/v1/areas", "/v1/areas.csv", "/v1/areas.geojson")
STATS_PATHS = ("/v1/areas/stats", "/v1/areas/stats.csv")
FORMATS = ("geojson", "csv", "ndjson")


@schemathesis.hook
def map_case(context, case):
    if not isinstance(case.query, dict):
        return case
    if case.operation.path in JSON_PATHS and case.query.get("format") in FORMATS:
        case.query["format"] = "json"
    if not _positive(case):
        return case
    if case.query.get("geometry", "point") == "point":
        case.query.pop("simplify", None)
    if case.operation.path in SEARCH_PATHS:
        _search(case.query)
    elif case.operation.path == "/v1/areas/compare":
        _compare(case.query)
    elif case.operation.path in LIST_PATHS:
        _list(case.query)
    elif case.operation.path in STATS_PATHS:
        _stats(case.query)
    return case


@schemathesis.hook
def before_add_examples(context, examples):
    # The examples phase fills each parameter from its schema's example,
    # without map_case: List's examples hold ids beside limit and offset, and
    # the statistics' examples paging beside another grouping.
    for case in examples:
        if isinstance(case.query, dict) and case.operation.path in LIST_PATHS:
            _list(case.query)
        if isinstance(case.query, dict) and case.operation.path in STATS_PATHS:
            _stats(case.query)


@schemathesis.deserializer("text/csv")
def csv_text(ctx, response):
    """A CSV answer as its text: the document describes it as a string with
    a pattern for its header row, which schemathesis then validates. Stateful
    testing finds nothing in a string where the links point into the JSON
    body, and follows no link from it."""
    return response.content.decode("utf-8")


# The keyless budget's tokens as last seen (RateLimit r), and when. The
# auth checks' probes (a request without a key and one with a wrong key)
# spend tokens past these hooks, hence the margin kept.
_KEYLESS = {"left": None, "at": 0.0}
KEYLESS = re.compile(r'^"keyless";r=(\d+);')
MARGIN = 5
REFILL_SECONDS = 1.0


@schemathesis.hook
def after_call(context, case, response):
    # schemathesis keeps headers by lowercase name, each a list of values.
    values = response.headers.get("ratelimit") or [""]
    left = KEYLESS.match(values[0])
    if left:
        _KEYLESS["left"], _KEYLESS["at"] = int(left.group(1)), time.monotonic()


# The auth checks probe each operation without a key and with a wrong one,
# with no answer seen here: two keyless tokens an operation. Each
# operation's first call waits for those two to refill, so that a run of
# fast operations cannot spend the budget the next probes need.
_OPERATIONS_SEEN = set()
PROBES_PER_OPERATION = 2


@schemathesis.hook
def before_call(context, case, **kwargs):
    operation = (case.operation.method, case.operation.path)
    if operation not in _OPERATIONS_SEEN:
        _OPERATIONS_SEEN.add(operation)
        time.sleep(PROBES_PER_OPERATION * REFILL_SECONDS)
    left = _KEYLESS["left"]
    if left is not None and left < MARGIN:
        ready = _KEYLESS["at"] + (MARGIN - left) * REFILL_SECONDS
        time.sleep(max(0.0, ready - time.monotonic()))
        _KEYLESS["left"], _KEYLESS["at"] = MARGIN, time.monotonic()

