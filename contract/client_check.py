#!/usr/bin/env python3
"""Calls every operation through a client generated from the served document.

contract/run.sh generates the client with openapi-python-client from
GET /v1/openapi.json, then runs

    python client_check.py BASE_URL CLIENT_DIR GROWTH_KEY STARTER_KEY

where CLIENT_DIR holds the generated package `area_client`. Each call uses
the parameter shapes a user of that client would (floats as floats, lists as
comma-joined strings), and each answer must parse into the generated models
and say something true about the seed (totals above zero, the ids asked for).

Each representation of List, Search and Export is an operation of its own
(`/v1/areas.csv`, `/v1/areas/search.geojson`, ...), so each generated
function has one answer type: GeoJSON parses into the generated models, and
CSV and NDJSON come as text (contract/client-config.yaml: the generator
knows no NDJSON media type), which is checked here. The JSON paths' older
`format=` and Accept are checked through the client's own httpx client.
"""

import csv
import io
import json
import sys

BASE, CLIENT_DIR, KEY, STARTER_KEY = sys.argv[1:5]
sys.path.insert(0, CLIENT_DIR)

# The generated package; its layout is openapi-python-client's.
from area_client import AuthenticatedClient  # noqa: E402
from area_client.api.areas import (  # noqa: E402
    compare_areas,
    export_areas,
    export_areas_csv,
    export_areas_geo_json,
    export_areas_nd_json,
    get_area,
    get_area_at,
    get_area_history,
    list_areas,
    list_areas_csv,
    list_areas_geo_json,
    search_areas,
    search_areas_csv,
    search_areas_geo_json,
)
from area_client.api.keys import get_key  # noqa: E402
from area_client.api.meta import health  # noqa: E402
from area_client import models as m  # noqa: E402
from area_client.types import UNSET, Unset  # noqa: E402

CHECKS = 0
SENT = []  # every request URL the client sent


def check(condition, what):
    global CHECKS
    CHECKS += 1
    if not condition:
        raise SystemExit(f"client check FAILED: {what}")


def client(key):
    return AuthenticatedClient(
        base_url=BASE,
        token=key,
        raise_on_unexpected_status=True,
        httpx_args={"event_hooks": {"request": [lambda r: SENT.append(str(r.url))]}},
    )


growth = client(KEY)
starter = client(STARTER_KEY)


def ok(response, model):
    """A 200 whose parsed body is the generated model `model`."""
    check(response.status_code == 200, f"{SENT[-1]}: status {response.status_code}")
    check(isinstance(response.parsed, model), f"{SENT[-1]}: parsed as {type(response.parsed).__name__}")
    return response.parsed


def ids(page):
    return [a.id for a in page.data]


def last_query():
    return SENT[-1].split("?", 1)[1] if "?" in SENT[-1] else ""


# ---- Search ----------------------------------------------------------------
page = ok(search_areas.sync_detailed(client=growth, q="cape town", limit=50), m.SearchPage)
check(page.total > 0 and "cape-town" in ids(page), "q=cape town finds cape-town")
check(page.offset == 0 and page.limit == 50, "search echoes limit and offset")
check(all(isinstance(hit.match, m.SearchMatch) for hit in page.data), "every item of a search with q has match")
cape_town = next(hit.match for hit in page.data if hit.id == "cape-town")
check(
    cape_town.tier == m.SearchMatchTier.EXACT and cape_town.other_name is None and cape_town.words == ["cape", "town"],
    f"cape-town matched exactly by its words: {cape_town.to_dict()}",
)

# Forgiving search, the default: a former name finds the area, and says which.
page = ok(search_areas.sync_detailed(client=growth, q="port elizabeth", limit=5), m.SearchPage)
check("match=forgiving" in last_query(), f"the client sends match's default: {last_query()}")
check(page.total > 0 and page.data[0].id == "gqeberha", f"q=port elizabeth finds gqeberha first: {ids(page)}")
found = page.data[0].match
check(found.tier == m.SearchMatchTier.OTHER_NAME, f"gqeberha matched through an other name: {found.to_dict()}")
check(found.other_name == "Port Elizabeth" and found.words == ["port", "elizabeth"], f"match names it: {found.to_dict()}")
gqeberha = ok(get_area.sync_detailed(client=growth, area_id="gqeberha"), m.AreaDetail)
check(found.other_name in gqeberha.other_names, f"Get Area lists {found.other_name}: {gqeberha.other_names}")
page = ok(search_areas.sync_detailed(client=growth, q="port elizabeth", match=m.SearchAreasMatch.EXACT, limit=50), m.SearchPage)
check("gqeberha" not in ids(page), "match=exact does not look through other names")
check(all(hit.match.tier == m.SearchMatchTier.EXACT for hit in page.data), "match=exact: every item in the exact tier")
page = ok(search_areas.sync_detailed(client=growth, q="stellenbosh", limit=5), m.SearchPage)
check(
    page.total > 0 and page.data[0].id == "stellenbosch" and page.data[0].match.tier == m.SearchMatchTier.ONE_TYPO,
    f"q=stellenbosh finds stellenbosch with one typo: {[(h.id, h.match.to_dict()) for h in page.data]}",
)

page = ok(search_areas.sync_detailed(client=growth, lat=-33.9249, lng=18.4241, radius=5.0), m.SearchPage)
check(page.total > 0, "areas within 5 km of central Cape Town")
check(all(0 <= hit.distance_km <= 5 for hit in page.data), "distance_km within the radius")
check(all(isinstance(hit.match, Unset) for hit in page.data), "no match on a search without q")
check(page.data == sorted(page.data, key=lambda h: (h.distance_km, h.id)), "nearest first")

response = search_areas.sync_detailed(client=growth, lat=-33.92584, lng=18.42322, radius=0.00001)
check("radius=1e-05" in last_query(), f"the client writes 0.00001 as 1e-05: {last_query()}")
ok(response, m.SearchPage)

viewport = (18.3, -34.2, 18.7, -33.7)
page = ok(search_areas.sync_detailed(client=growth, bbox=",".join(map(str, viewport)), limit=50), m.SearchPage)
check(page.total > 0, "bbox around Cape Town holds areas")
for hit in page.data[:5]:
    detail = ok(get_area.sync_detailed(client=growth, area_id=hit.id), m.AreaDetail)
    c = detail.coordinates
    check(viewport[0] <= c.lng <= viewport[2] and viewport[1] <= c.lat <= viewport[3], f"{hit.id} lies in the bbox")
page = ok(search_areas.sync_detailed(client=growth, bbox="170,-10,-170,10"), m.SearchPage)
check(page.total == 0, "a box across the antimeridian holds no South African area")

# The area at a point: Get Area's detail form and located; no_area_here off every boundary.
found = ok(get_area_at.sync_detailed(client=growth, lat=-33.9249, lng=18.4241, include="boundary"), m.AreaAt)
check(found.id == "cape-town" and found.located.by == m.LocatedBy.BOUNDARY, f"the area at central Cape Town: {found.id}")
check(found.boundary is not None and found.boundary.to_dict()["type"] in ("Polygon", "MultiPolygon"), "include=boundary")
response = get_area_at.sync_detailed(client=growth, lat=-29.31, lng=27.48)
check(response.status_code == 404 and response.parsed.error.code.value == "no_area_here", f"Maseru: {response.status_code}")
response = list_areas_geo_json.sync_detailed(client=growth, limit=5, geometry=m.ListAreasGeoJsonGeometry.BOUNDARY)
check(response.status_code == 200, f"geometry=boundary: {response.status_code}")
shapes = [f["geometry"]["type"] for f in json.loads(response.content)["features"]]
check(shapes == ["MultiPolygon"] * 5, f"List GeoJSON with geometry=boundary: MultiPolygons, not {shapes}")

first = ok(search_areas.sync_detailed(client=growth, min_score=5.0, limit=3), m.SearchPage)
second = ok(search_areas.sync_detailed(client=growth, min_score=5.0, limit=3, offset=3), m.SearchPage)
check(first.total == second.total > 6, "paging keeps the total")
check(not set(ids(first)) & set(ids(second)), "offset=3 gives the next page")
response = search_areas.sync_detailed(client=growth, min_score=5.0, limit=3, offset=first.total)
beyond = ok(response, m.SearchPage)
check(beyond.data == [] and beyond.total == first.total, "an offset past the end is an empty page")
check(response.headers["X-Total-Count"] == str(first.total), "X-Total-Count is the total")
check('rel="prev"' in response.headers["Link"] and 'rel="next"' not in response.headers["Link"], "last page links")

gauteng = m.SearchAreasProvince.GAUTENG
best = ok(search_areas.sync_detailed(client=growth, province=gauteng, min_score=7.0, limit=50), m.SearchPage)
gauteng_page = list_areas.sync_detailed(client=growth, province=m.ListAreasProvince.GAUTENG, limit=100)
listed = ok(gauteng_page, m.AreaPage)
# httpx asks for gzip by default: a page of 100 comes gzipped and reads as ever.
check(gauteng_page.headers.get("Content-Encoding") == "gzip", "a page of 100 comes gzipped")
check(best.total == len(best.data) == sum(a.truth_score >= 7 for a in listed.data) > 0, "Gauteng scoring 7 or more")
check(all(a.province.value == "Gauteng" and a.truth_score >= 7 for a in best.data), "only Gauteng's best")
check(all(a.province_slug.value == "gauteng" for a in listed.data), "province_slug is the filter's slug")
check(isinstance(listed.missing, Unset), "missing only with ids")
# The generated client sends each parameter's default unless told UNSET:
# paging and sorting are refused beside ids.
paging = {"limit": UNSET, "offset": UNSET, "sort": UNSET, "order": UNSET}
response = list_areas.sync_detailed(client=growth, ids="soweto,no-such-area,stellenbosch", **paging)
by_ids = ok(response, m.AreaPage)
check(ids(by_ids) == ["soweto", "stellenbosch"] and by_ids.missing == ["no-such-area"], "ids= in order, missing beside")
check(by_ids.total == 2 and response.headers["X-Missing-Ids"] == "no-such-area", "ids= total and X-Missing-Ids")
cape = m.SearchAreasProvince.EASTERN_CAPE
page = ok(search_areas.sync_detailed(client=growth, q="port", province=cape, limit=50), m.SearchPage)
check(page.total > 0 and all(a.province.value == "Eastern Cape" for a in page.data), "q within a province")

response = search_areas.sync_detailed(client=growth, q="cape", min_score=0.0, limit=1)
ok(response, m.SearchPage)
check('rel="next"' in response.headers["Link"], "a first page links to the next")
check(response.headers["Vary"] == "Authorization, Accept, Accept-Encoding", "Vary names Accept and Accept-Encoding")

# ---- Compare ---------------------------------------------------------------
two = ok(compare_areas.sync_detailed(client=growth, ids="johannesburg,pretoria"), m.Comparison)
check([a.id for a in two.areas] == ["johannesburg", "pretoria"], "compare keeps the order of ids")
check(two.winner.overall in ("johannesburg", "pretoria"), "a winner among the two")
five_ids = ["johannesburg", "pretoria", "durban", "cape-town", "soweto"]
five = ok(compare_areas.sync_detailed(client=growth, ids=",".join(five_ids)), m.Comparison)
check([a.id for a in five.areas] == five_ids, "five areas compared")
some = ok(compare_areas.sync_detailed(client=growth, ids="johannesburg,durban", dimensions="safety,market"), m.Comparison)
for area in some.areas:
    check(set(area.dimensions.to_dict()) == {"safety", "market"}, "dimensions limits the comparison")
check(set(some.winner.by_dimension.to_dict()) == {"safety", "market"}, "and the winners")
for order in ("heidelberg-western-cape,heidelberg-gauteng", "heidelberg-gauteng,heidelberg-western-cape"):
    tied = ok(compare_areas.sync_detailed(client=growth, ids=order), m.Comparison)
    check(tied.winner.overall == "heidelberg-gauteng", "a tie goes to the lower id, in either order")
    check(tied.winner.ties.overall == order.split(","), "ties names both Heidelbergs in the order of ids")

# ---- Get, history ----------------------------------------------------------
area = ok(get_area.sync_detailed(client=growth, area_id="johannesburg", include="nearby,history"), m.AreaDetail)
check(area.id == "johannesburg" and len(area.history) == 30, "include=history: 30 daily points")
check(len(area.nearby) > 0 and all(n.distance_km <= 25 for n in area.nearby), "include=nearby")
check(abs(area.history[-1].truth_score - area.truth_score) < 1e-9, "the last point is the truth_score")
denied = starter  # a starter key may read an area, not its history
response = get_area.sync_detailed(client=denied, area_id="johannesburg", include="history")
check(response.status_code == 403 and isinstance(response.parsed, m.ErrorPlanUpgradeRequired), "history needs growth")
refusal = response.parsed.error
check(
    (refusal.required_plan.value, refusal.plan.value, refusal.param.value) == ("growth", "starter", "include"),
    f"the 403 names the plan needed, the plan held and the parameter: {refusal.to_dict()}",
)
response = get_area_history.sync_detailed(client=denied, area_id="johannesburg")
check(response.status_code == 403 and isinstance(response.parsed.error.param, Unset), "the history endpoint's 403 names no parameter")

# Unknown areas: ids lists them, in the order asked.
response = compare_areas.sync_detailed(client=growth, ids="lemuria,johannesburg,narnia")
check(response.status_code == 404 and isinstance(response.parsed, m.ErrorAreaNotFound), f"compare of unknown ids: {response.status_code}")
check(response.parsed.error.ids == ["lemuria", "narnia"], f"area_not_found lists the unknown ids: {response.parsed.error.to_dict()}")
response = get_area.sync_detailed(client=growth, area_id="no-such-area")
check(response.status_code == 404 and response.parsed.error.ids == ["no-such-area"], "Get Area's 404 lists its id")

points = {"7d": 7, "30d": 30, "90d": 90, "1y": 365}
for period in m.GetAreaHistoryPeriod:
    for granularity in m.GetAreaHistoryGranularity:
        h = ok(
            get_area_history.sync_detailed(client=growth, area_id="pretoria", period=period, granularity=granularity),
            m.AreaHistory,
        )
        check(h.area_id == "pretoria" and h.period.value == period.value, f"history {period.value}")
        n = len(h.history)
        if granularity.value == "daily":
            check(n == points[period.value], f"{period.value} daily has {points[period.value]} points")
        else:
            # Partial weeks and months at both edges count.
            longest = points[period.value] // (7 if granularity.value == "weekly" else 28) + 2
            check(0 < n <= longest, f"{period.value} {granularity.value}: {n} points")

# ---- List ------------------------------------------------------------------
everything = ok(list_areas.sync_detailed(client=growth, limit=1), m.AreaPage).total
check(everything > 900, "the seed's areas")
for sort in m.ListAreasSort:
    for order in m.ListAreasOrder:
        page = ok(list_areas.sync_detailed(client=growth, sort=sort, order=order, limit=100), m.AreaPage)
        check(page.total == everything and len(page.data) == 100, f"list sort={sort.value} order={order.value}")
        if sort.value == "truth_score":
            scores = [a.truth_score for a in page.data]
            check(scores == sorted(scores, reverse=order.value == "desc"), "sorted by truth_score")
by_province = 0
for province in m.ListAreasProvince:
    page = ok(list_areas.sync_detailed(client=growth, province=province, limit=100), m.AreaPage)
    check(page.total > 0, f"areas in {province.value}")
    check(all(a.province.value.lower().replace(" ", "-") == province.value for a in page.data), f"only {province.value}")
    by_province += page.total
check(by_province == everything, "the provinces hold every area")

# ---- Errors a client's code acts on, and the rate headers -------------------
raw = growth.get_httpx_client()


def refused(path, params, model):
    """A 4xx answer sent past the generated client's own checks, as its model."""
    r = raw.get(path, params=params)
    check(400 <= r.status_code < 500, f"{r.url}: status {r.status_code}")
    return model.from_dict(r.json()).error, r


# allowed is the set the generated client's enum holds (whose members it
# sorts by name), in the order of the served document's enum.
served = raw.get("/v1/openapi.json").json()
list_params = {p["name"]: p["schema"] for p in served["paths"]["/v1/areas"]["get"]["parameters"] if p.get("in") == "query"}
for param, enum in [("sort", m.ListAreasSort), ("order", m.ListAreasOrder), ("province", m.ListAreasProvince), ("format", m.ListAreasFormat)]:
    error, _ = refused("/v1/areas", {param: "no-such-word"}, m.ErrorInvalidParameter)
    check(error.param == param and set(error.allowed) == {e.value for e in enum}, f"{param}: allowed {error.allowed}")
    check(error.allowed == list_params[param]["enum"], f"{param}: allowed in the document's order: {error.allowed}")
error, _ = refused("/v1/areas", {"colour": "red"}, m.ErrorInvalidParameter)
check(error.param == "colour" and set(error.allowed) == set(list_params), f"an unknown parameter lists List's: {error.to_dict()}")
error, _ = refused("/v1/areas", {"limit": 0}, m.ErrorInvalidParameter)
check(error.param == "limit" and isinstance(error.allowed, Unset), f"a bound lists no words: {error.to_dict()}")
error, _ = refused("/v1/areas/compare", {"ids": ",".join(f"area-{i}" for i in range(6))}, m.ErrorInvalidParameter)
check(error.param == "ids", f"six ids: {error.to_dict()}")
# One pair more than List has parameters: the first unknown one is named.
pairs = "&".join(["limit=1"] + [f"x{i}=1" for i in range(len(list_params))])
error, _ = refused(f"/v1/areas?{pairs}", None, m.ErrorInvalidParameter)
check(error.param == "x0", f"more pairs than List has parameters: {error.to_dict()}")

response = list_areas.sync_detailed(client=starter, limit=1)
policy, left = response.headers["RateLimit-Policy"], response.headers["RateLimit"]
check(policy == f'"starter";q={response.headers["X-RateLimit-Limit"]};w=60', f"RateLimit-Policy: {policy}")
check(
    left == f'"starter";r={response.headers["X-RateLimit-Remaining"]};t={response.headers["X-RateLimit-Reset"]}',
    f"RateLimit says what X-RateLimit-* say: {left}",
)
exposed = response.headers["Access-Control-Expose-Headers"]
check("RateLimit-Policy" in exposed and "RateLimit," in exposed, f"CORS exposes the RateLimit fields: {exposed}")
before = ok(get_key.sync_detailed(client=starter), m.KeyInfo).rate_limit.remaining
after = ok(get_key.sync_detailed(client=starter), m.KeyInfo).rate_limit.remaining
check(after >= before, f"GET /v1/key spends nothing: {before} then {after}")

# A wrong key: 401 with the Bearer challenge and the keyless budget. (One
# request: the check never spends the client's keyless budget, which
# schemathesis's requests without a key then need.)
stranger = client("ask_" + "0" * 40)
response = list_areas.sync_detailed(client=stranger)
check(response.status_code == 401 and isinstance(response.parsed, m.ErrorUnauthorized), f"a wrong key: {response.status_code}")
check(response.parsed.error.code.value == "invalid_api_key", f"invalid_api_key: {response.parsed.error.to_dict()}")
check(response.headers.get("WWW-Authenticate") == "Bearer", "401 challenges for a Bearer key")
check(response.headers.get("RateLimit-Policy") == '"keyless";q=60;w=60', f"the keyless budget: {response.headers.get('RateLimit-Policy')}")
check(response.headers.get("RateLimit", "").startswith('"keyless";r='), f"what is left of it: {response.headers.get('RateLimit')}")
check("X-RateLimit-Limit" not in response.headers, "no X-RateLimit headers without a valid key")

# ---- Export ----------------------------------------------------------------
export = ok(export_areas.sync_detailed(client=growth), m.ExportPage)
check(export.total == everything == len(export.data), "the export holds every area")
check(ids(export) == sorted(ids(export)), "ordered by id")
check(all(-35 < a.lat < -22 and 16 < a.lng < 33 for a in export.data), "centres in South Africa")
check(all(a.safety is None or 0 <= a.safety <= 10 for a in export.data), "dimension scores")
cape = ok(export_areas.sync_detailed(client=growth, province=m.ExportAreasProvince.WESTERN_CAPE), m.ExportPage)
check(0 < cape.total < everything, "export of one province")
response = export_areas.sync_detailed(client=starter)
check(response.status_code == 403 and isinstance(response.parsed, m.ErrorPlanUpgradeRequired), "export needs growth")
refusal = response.parsed.error
check(
    (refusal.required_plan.value, refusal.plan.value) == ("growth", "starter") and isinstance(refusal.param, Unset),
    f"the export's 403 names both plans and no parameter: {refusal.to_dict()}",
)

# ---- Each format's own operation ------------------------------------------
def media_type(response):
    return response.headers["content-type"].split(";")[0]


def csv_of(response, what):
    """A CSV 200 that the generated function handed over as text, as rows."""
    check(response.status_code == 200, f"{what}: status {response.status_code}")
    check(isinstance(response.parsed, str), f"{what}: parsed as {type(response.parsed).__name__}")
    check(media_type(response) == "text/csv", f"{what}: {response.headers['content-type']}")
    text = response.parsed
    check(text.endswith("\r\n") and text.count("\n") == text.count("\r\n"), f"{what}: CRLF line ends")
    reader = csv.DictReader(io.StringIO(text, newline=""))
    rows = list(reader)
    check(reader.fieldnames is not None, f"{what}: a header row")
    return reader.fieldnames, rows


LIST_COLUMNS = "id,name,province,province_slug,municipality,truth_score,updated_at,lat,lng".split(",")

json_page = ok(search_areas.sync_detailed(client=growth, q="cape", limit=50), m.SearchPage)
response = search_areas_geo_json.sync_detailed(client=growth, q="cape", limit=50)
collection = ok(response, m.SearchFeatureCollection)
check(media_type(response) == "application/geo+json", f"search.geojson: {response.headers['content-type']}")
check(collection.type_ == "FeatureCollection", "search.geojson is a FeatureCollection")
check(collection.total == json_page.total == int(response.headers["X-Total-Count"]) > 0, "GeoJSON search total")
check([f.id for f in collection.features] == ids(json_page), "GeoJSON search: the JSON page's areas, in order")
check(all(isinstance(f.properties.match, m.SearchMatch) for f in collection.features), "GeoJSON search items have match")
check(all(f.geometry.coordinates[0] > 16 for f in collection.features), "[lng, lat]")
check(response.headers["Vary"] == "Authorization, Accept-Encoding", f"a format's path does not vary by Accept: {response.headers['Vary']}")

response = list_areas_geo_json.sync_detailed(client=growth, limit=5)
listed = ok(response, m.AreaFeatureCollection)
check(len(listed.features) == 5 and listed.total == everything, "GeoJSON list")
check(all("match" not in f.properties.to_dict() for f in listed.features), "List's features have no match")

gauteng_page = ok(list_areas.sync_detailed(client=growth, province=m.ListAreasProvince.GAUTENG, limit=100), m.AreaPage)
response = list_areas_csv.sync_detailed(client=growth, province=m.ListAreasCsvProvince.GAUTENG, limit=100)
header, rows = csv_of(response, "areas.csv")
check(header == LIST_COLUMNS, f"CSV columns: {header}")
check([r["id"] for r in rows] == ids(gauteng_page), "CSV list of Gauteng: the JSON page's areas, in order")
check(len(rows) == int(response.headers["X-Total-Count"]), "CSV list: X-Total-Count")
check(all(float(r["truth_score"]) == a.truth_score for r, a in zip(rows, gauteng_page.data)), "CSV truth_score")

header, rows = csv_of(search_areas_csv.sync_detailed(client=growth, lat=-26.2041, lng=28.0473), "search.csv")
check(header == LIST_COLUMNS + ["distance_km"], f"CSV distance_km on a geo search: {header}")
check(len(rows) > 0 and all(float(r["distance_km"]) <= 10 for r in rows), "CSV search: areas within 10 km")

# A format's path takes no format=: 400 naming it, as any unknown parameter.
error, _ = refused("/v1/areas.csv", {"format": "csv"}, m.ErrorInvalidParameter)
csv_params = {p["name"] for p in served["paths"]["/v1/areas.csv"]["get"]["parameters"] if p.get("in") == "query"}
check(error.param == "format" and set(error.allowed) == csv_params, f"format= at /v1/areas.csv: {error.to_dict()}")

exported = {}
for fmt, call in [("ndjson", export_areas_nd_json), ("csv", export_areas_csv), ("geojson", export_areas_geo_json)]:
    response = call.sync_detailed(client=growth)
    check(response.status_code == 200, f"export.{fmt}: status {response.status_code}")
    check(response.headers["content-disposition"].startswith('attachment; filename="areas-'), "Content-Disposition")
    check(response.headers["content-disposition"].endswith(f'.{fmt}"'), "the file's extension")
    exported[fmt] = response
text = exported["ndjson"].parsed
check(isinstance(text, str), f"export.ndjson: parsed as {type(text).__name__}")
lines = [m.ExportArea.from_dict(json.loads(line)) for line in text.splitlines()]
check([a.id for a in lines] == ids(export), "NDJSON: every area, one a line")
header, rows = csv_of(exported["csv"], "export.csv")
check(header[: len(LIST_COLUMNS)] == LIST_COLUMNS, f"CSV export columns: {header}")
check([r["id"] for r in rows] == ids(export), "CSV export: every area")
features = exported["geojson"].parsed
check(isinstance(features, m.ExportFeatureCollection), f"export.geojson: parsed as {type(features).__name__}")
check(features.total == everything == len(features.features), "GeoJSON export: every area")

# ---- The JSON paths' format= and Accept, as older clients send them --------
http = growth.get_httpx_client()


def fetch(path, params, media, accept=None):
    headers = {"Accept": accept} if accept else {}
    r = http.get(path, params=params, headers=headers)
    check(r.status_code == 200, f"{r.url}: status {r.status_code}")
    check(media_type(r) == media, f"{r.url}: {r.headers['content-type']}")
    return r


for own, params, accept in [
    ("/v1/areas.geojson", {"limit": 5, "format": "geojson"}, None),
    ("/v1/areas.csv", {"province": "gauteng", "limit": 100}, "text/csv"),
    ("/v1/areas/search.csv", {"q": "cape", "limit": 50, "format": "csv"}, None),
    ("/v1/areas/export.ndjson", {}, "application/x-ndjson"),
]:
    path, ext = own.rsplit(".", 1)
    media = {"geojson": "application/geo+json", "csv": "text/csv", "ndjson": "application/x-ndjson"}[ext]
    older = fetch(path, params, media, accept)
    mine = http.get(own, params={k: v for k, v in params.items() if k != "format"})
    check(older.content == mine.content, f"{older.url} answers what {mine.url} does")

ok(health.sync_detailed(client=growth), m.Health)

# ---- The calling key -------------------------------------------------------
for who, plan in ((growth, "growth"), (starter, "starter")):
    me = ok(get_key.sync_detailed(client=who), m.KeyInfo)
    check(me.plan.value == plan, f"GET /v1/key: plan {me.plan}")
    check(me.key_id.startswith("key_"), f"GET /v1/key: key_id {me.key_id}")
    if who is growth:
        check(me.usage_today.ok > 10, "GET /v1/key: the growth key's earlier requests are counted")
    limit = me.rate_limit.requests_per_minute
    check(limit is None or limit > 0, f"GET /v1/key: limit {limit}")
print(f"client check: PASS: {CHECKS} checks over {len(SENT)} requests through the generated client")
