// The TypeScript client check of `make contract` (contract/run.sh).
//
// run.sh generates generated/schema.d.ts from docs/openapi.json with
// openapi-typescript, compiles this file under `tsc --strict`, and runs it:
//
//     node generated/js/client_check.js BASE_URL GROWTH_KEY
//
// It compiles only if each answer has one type: List's and Search's
// `data.total` are read with no check of which representation came back,
// as a typed client's user reads them. Run, it calls the JSON, CSV and
// GeoJSON operations of List, Search and Export through openapi-fetch and
// checks what each says about the seed; any mismatch exits non-zero.

import createClient from "openapi-fetch";
import type { paths } from "./generated/schema.js";

// Node's own globals, the two this check uses (no @types/node to pin).
declare const process: { argv: string[]; exitCode?: number };

const [base, key] = process.argv.slice(2);
const client = createClient<paths>({
  baseUrl: base,
  headers: { Authorization: `Bearer ${key}` },
});

let checks = 0;

function check(condition: boolean, what: string): void {
  checks += 1;
  if (!condition) {
    throw new Error(`TypeScript client check FAILED: ${what}`);
  }
}

/// The body of a 200, or a failed check naming the call.
function ok<T>(what: string, result: { data?: T; error?: unknown; response: Response }): T {
  const { data, error, response } = result;
  check(response.status === 200, `${what}: status ${response.status}: ${JSON.stringify(error)}`);
  if (data === undefined) {
    throw new Error(`TypeScript client check FAILED: ${what}: no body`);
  }
  return data;
}

function mediaType(response: Response): string {
  return (response.headers.get("content-type") ?? "").split(";")[0];
}

/// The rows of a CSV answer as records by header, for the simple cells the
/// checks read (the seed's names hold no comma in the columns read here).
function csvRows(text: string): { header: string[]; rows: string[][] } {
  check(text.endsWith("\r\n"), "CSV lines end in CRLF");
  const lines = text.slice(0, -2).split("\r\n");
  const header = lines[0].split(",");
  return { header, rows: lines.slice(1).map((line) => line.split(",")) };
}

const LIST_COLUMNS = "id,name,province,province_slug,municipality,truth_score,updated_at,lat,lng";

async function main(): Promise<void> {
  // ---- List ----------------------------------------------------------------
  const listed = await client.GET("/v1/areas", {
    params: { query: { province: "gauteng", limit: 100 } },
  });
  const page = ok("GET /v1/areas", listed);
  // One type per answer: no check of the representation before `.total`.
  const total: number = page.total;
  check(total > 0 && page.data.length === Math.min(total, 100), `List: total ${total}`);
  check(page.data.every((a) => a.province === "Gauteng"), "List: only Gauteng");
  check(mediaType(listed.response) === "application/json", "List answers JSON");

  const listedCsv = await client.GET("/v1/areas.csv", {
    params: { query: { province: "gauteng", limit: 100 } },
    parseAs: "text",
  });
  const csvText: string = ok("GET /v1/areas.csv", listedCsv);
  check(mediaType(listedCsv.response) === "text/csv", `List CSV: ${mediaType(listedCsv.response)}`);
  const listCsv = csvRows(csvText);
  check(listCsv.header.join(",") === LIST_COLUMNS, `List CSV header: ${listCsv.header}`);
  check(
    listCsv.rows.map((r) => r[0]).join() === page.data.map((a) => a.id).join(),
    "List CSV: the JSON page's areas, in order",
  );
  check(listedCsv.response.headers.get("x-total-count") === String(total), "List CSV: X-Total-Count");

  const listedGeo = await client.GET("/v1/areas.geojson", {
    params: { query: { province: "gauteng", limit: 100 } },
  });
  const collection = ok("GET /v1/areas.geojson", listedGeo);
  check(mediaType(listedGeo.response) === "application/geo+json", "List GeoJSON's type");
  check(collection.type === "FeatureCollection", "List GeoJSON is a FeatureCollection");
  const geoTotal: number = collection.total;
  check(geoTotal === total, `List GeoJSON total ${geoTotal}, JSON ${total}`);
  check(
    collection.features.map((f) => f.id).join() === page.data.map((a) => a.id).join(),
    "List GeoJSON: the JSON page's areas, in order",
  );
  check(
    // The GeoJSON paths answer Points or, with geometry=boundary, MultiPolygons:
    // a generated client narrows by the geometry's type.
    collection.features.every(
      (f) => f.geometry !== null && f.geometry.type === "Point" && f.geometry.coordinates[0] > 16,
    ),
    "List GeoJSON: points at [lng, lat]",
  );

  // ---- Search --------------------------------------------------------------
  const query = { q: "cape town", limit: 50 };
  const searched = await client.GET("/v1/areas/search", { params: { query } });
  const found = ok("GET /v1/areas/search", searched);
  const matches: number = found.total;
  check(matches > 0 && found.data.some((a) => a.id === "cape-town"), "Search finds cape-town");
  const capeTown = found.data.find((a) => a.id === "cape-town");
  check(capeTown?.match?.tier === "exact", `cape-town matched exactly: ${JSON.stringify(capeTown?.match)}`);

  const searchedCsv = await client.GET("/v1/areas/search.csv", {
    params: { query: { lat: -26.2041, lng: 28.0473, radius: 10 } },
    parseAs: "text",
  });
  const searchCsv = csvRows(ok("GET /v1/areas/search.csv", searchedCsv));
  check(mediaType(searchedCsv.response) === "text/csv", "Search CSV's type");
  check(
    searchCsv.header.join(",") === `${LIST_COLUMNS},distance_km`,
    `Search CSV with lat and lng has distance_km: ${searchCsv.header}`,
  );
  check(searchCsv.rows.length > 0, "Search CSV: areas near Johannesburg");

  const searchedGeo = await client.GET("/v1/areas/search.geojson", { params: { query } });
  const hits = ok("GET /v1/areas/search.geojson", searchedGeo);
  check(hits.type === "FeatureCollection" && hits.total === matches, `Search GeoJSON total ${hits.total}`);
  check(
    hits.features.every((f) => f.properties.match !== undefined),
    "Search GeoJSON: every feature says how it matched",
  );
  const accepted = await client.GET("/v1/areas/search.geojson", {
    params: { query, header: {} },
    headers: { Accept: "text/csv" },
  });
  check(mediaType(accepted.response) === "application/geo+json", "Accept chooses nothing at a format's path");

  // ---- Export --------------------------------------------------------------
  const exported = ok("GET /v1/areas/export", await client.GET("/v1/areas/export", {}));
  check(exported.total === exported.data.length && exported.total > 900, `Export: ${exported.total} areas`);
  const exportedCsv = await client.GET("/v1/areas/export.csv", { parseAs: "text" });
  const exportCsv = csvRows(ok("GET /v1/areas/export.csv", exportedCsv));
  check(exportCsv.rows.length === exported.total, "Export CSV: every area");
  check(exportCsv.header.slice(0, 9).join(",") === LIST_COLUMNS, `Export CSV header: ${exportCsv.header}`);
  const exportedGeo = ok("GET /v1/areas/export.geojson", await client.GET("/v1/areas/export.geojson", {}));
  check(
    exportedGeo.type === "FeatureCollection" && exportedGeo.features.length === exported.total,
    "Export GeoJSON: every area",
  );
  const ndjson = await client.GET("/v1/areas/export.ndjson", { parseAs: "text" });
  const lines = ok("GET /v1/areas/export.ndjson", ndjson).trimEnd().split("\n");
  check(lines.length === exported.total, "Export NDJSON: an area a line");
  check(JSON.parse(lines[0]).id === exported.data[0].id, "Export NDJSON: ordered by id as JSON is");

  // ---- The area at a point, and boundaries ----------------------------------
  const at = ok(
    "GET /v1/areas/at",
    await client.GET("/v1/areas/at", { params: { query: { lat: -33.9249, lng: 18.4241, include: "boundary" } } }),
  );
  check(at.id === "cape-town" && at.located.by === "boundary", `the area at central Cape Town: ${at.id}`);
  const boundary = at.boundary;
  check(
    boundary !== null && boundary !== undefined && (boundary.type === "Polygon" || boundary.type === "MultiPolygon"),
    "include=boundary gives a Polygon or MultiPolygon",
  );
  const nowhere = await client.GET("/v1/areas/at", { params: { query: { lat: -29.31, lng: 27.48 } } });
  check(
    nowhere.response.status === 404 && nowhere.error?.error.code === "no_area_here",
    `Maseru is in no area: ${nowhere.response.status}`,
  );
  const shapes = ok(
    "GET /v1/areas.geojson?geometry=boundary",
    await client.GET("/v1/areas.geojson", {
      params: { query: { province: "gauteng", limit: 5, geometry: "boundary", simplify: 250 } },
    }),
  );
  check(
    shapes.features.every((f) => f.geometry !== null && f.geometry.type === "MultiPolygon"),
    "List GeoJSON with geometry=boundary: MultiPolygons",
  );

  console.log(`TypeScript client check: PASS: ${checks} checks`);
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
});
