// /explore: the area explorer. With a growth key or above the map shows every
// area, loaded with one export request; with a lower plan it shows the marks
// of the current results. On any plan the boundaries around the view are
// filled by score (map.js, Boundaries). GET /v1/key tells the page the plan.
// Results come from List (a province, no search) or Search (text, a circle,
// the map's view, a minimum score, each within the chosen province), in pages;
// picking an area opens the panel, and a click on the map opens the area at
// that point.

import { call, el, keyForm, planAtLeast, query, savedKey } from "/web/api.js";
import { AreaMap, COLOURS, legendItems } from "/web/map.js";
import { Panel } from "/web/panel.js";
import { Compare } from "/web/compare.js";

const PAGE = 10;
const FULL_MAP_PLAN = "growth";
const TYPING_PAUSE_MS = 250;
const $ = (id) => document.getElementById(id);

const state = { plan: "", offset: 0, total: 0, circle: null, bbox: null, asked: 0, fullMap: false, run: 0, started: 0 };

function say(text, isError = false) {
  const m = $("message");
  m.textContent = text;
  m.classList.toggle("error", isError);
}

const map = new AreaMap($("map"), {
  onPoint: (at) => openAt(at),
  onBoundaries: (now, text) => {
    const canvas = $("map");
    canvas.dataset.boundaryState = now;
    $("boundary-line").textContent = text;
    // The first answer for the key's first view, timed from entering the key as the full map is.
    if ((now === "shown" || now === "too-many") && state.started && !canvas.dataset.boundariesMs) {
      canvas.dataset.boundariesMs = String(Math.round(performance.now() - state.started));
    }
  },
  onPlace: (at) => {
    if (!$("radius-mode").checked) return false;
    const km = Math.min(Number($("radius").max), Math.max(Number($("radius").min), Number($("radius").value) || 10));
    state.circle = { lat: round5(at.lat), lng: round5(at.lng), km };
    state.bbox = null;
    map.setCircle(state.circle);
    search(0);
    return true;
  },
});

const compare = new Compare({ list: $("compare-list"), button: $("compare"), clear: $("compare-clear"), out: $("comparison"), say });
compare.onChange = () => {
  for (const box of document.querySelectorAll("#results input[type=checkbox]")) box.checked = compare.has(box.dataset.id);
};
const panel = new Panel($("panel"), { plan: () => state.plan, open: (id) => openArea(id), compare, say });

function round5(v) { return Math.round(v * 1e5) / 1e5; }

async function openArea(id) {
  map.select(id);
  const area = await panel.show(id);
  if (area) map.pick(area);
}

/** The area at a point of the map, through GET /v1/areas/at. */
async function openAt(at) {
  if (!savedKey() || !state.plan) { say("Enter an API key to see the area at a point.", true); return; }
  map.pick(null);
  const area = await panel.showAt(at);
  if (area) map.pick(area);
}

/** The request for the current criteria and page: Search when any criterion is set (within the
 *  province, when one is chosen), else List of the province. */
function target(offset) {
  const q = $("q").value.trim();
  const min = $("min-score").value;
  const criteria = {
    q: /[\p{L}\p{N}]/u.test(q) ? q : "",
    min_score: min,
    ...(state.circle ? { lat: state.circle.lat, lng: state.circle.lng, radius: state.circle.km } : {}),
    ...(state.bbox ? { bbox: state.bbox.join(",") } : {}),
  };
  const searching = Object.values(criteria).some((v) => v !== "");
  const province = $("province").value;
  if (searching) return "/v1/areas/search" + query({ ...criteria, province, limit: PAGE, offset, format: "geojson" });
  return "/v1/areas" + query({ province, sort: "truth_score", order: "desc", limit: PAGE, offset, format: "geojson" });
}

async function search(offset) {
  if (!savedKey() || !state.plan) return;
  const asked = ++state.asked;
  const request = target(offset);
  const answer = await call(request);
  if (asked !== state.asked) return; // a later search has been sent since
  if (!answer.ok) { say(answer.message, true); return; }
  const rows = answer.body.features.map((f) => ({ ...f.properties, id: f.id, lng: f.geometry.coordinates[0], lat: f.geometry.coordinates[1] }));
  state.offset = offset;
  state.total = answer.body.total;
  showResults(rows);
  $("results").dataset.request = request;
  if (!state.fullMap) {
    map.setMarks(rows);
    if (rows.length) map.fit();
  } else {
    map.highlight(rows.map((r) => r.id));
  }
  say(`${state.total} area${state.total === 1 ? "" : "s"} found.`);
}

function showResults(rows) {
  const list = $("results");
  list.replaceChildren(...rows.map((a) => {
    const open = el("button", { type: "button", "data-id": a.id },
      el("span", { class: "score", text: a.truth_score.toFixed(2) }), " ", a.name,
      el("span", { class: "small", text: ` · ${a.province}` + (a.distance_km !== undefined ? ` · ${a.distance_km} km` : "") }),
      ...matchNote(a.match));
    open.addEventListener("click", () => openArea(a.id));
    const box = el("input", { type: "checkbox", id: "cmp-" + a.id, "data-id": a.id });
    box.checked = compare.has(a.id);
    box.addEventListener("change", () => { box.checked = compare.toggle(a.id, a.name); });
    return el("li", {}, open, el("label", { for: "cmp-" + a.id, class: "small" }, box, el("span", { class: "visually-hidden", text: `Compare ${a.name}` }), " compare"));
  }));
  const last = Math.min(state.offset + rows.length, state.total);
  $("page-info").textContent = state.total ? `${state.offset + 1}–${last} of ${state.total}` : "No areas match.";
  $("prev").disabled = state.offset === 0;
  $("next").disabled = last >= state.total;
}

/** How a forgiving search found an area, when not by its own words as typed: the other name
 *  it matched ("also known as Port Elizabeth", not "formerly": other names are former names,
 *  short forms and other spellings alike) and, for a typo, the words taken ("for
 *  johannesburg"). Inside the result's button, so a screen reader reads it with the name; the
 *  space before it keeps the two words apart there. Nothing when the match was exact. */
function matchNote(m) {
  if (!m || m.tier === "exact") return [];
  const parts = [];
  if (m.other_name) parts.push(`also known as ${m.other_name}`);
  if ((m.tier === "one_typo" || m.tier === "two_typos") && m.words.length) parts.push(`for ${m.words.join(" ")}`);
  if (!parts.length) return [];
  return [" ", el("span", { class: "match-note", "data-tier": m.tier, text: parts.join(" · ") })];
}

/** Every area on the map from one export request; returns how long it took, in ms. */
async function loadFullMap(started, run) {
  say("Loading every area…");
  const answer = await call("/v1/areas/export");
  if (run !== state.run) return; // another key was entered meanwhile
  if (!answer.ok) { say(answer.message, true); return; }
  map.setMarks(answer.body.data);
  map.fit();
  await map.loadLand(); // the time shown is that of the dots over the land
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  const ms = Math.round(performance.now() - started);
  $("map").dataset.loadMs = String(ms);
  $("map-line").textContent = `All ${answer.body.total.toLocaleString("en")} areas on the map, drawn ${ms} ms after the key was entered.`;
}

async function start(key) {
  const started = performance.now();
  const run = ++state.run;
  delete $("map").dataset.loadMs;
  delete $("map").dataset.boundariesMs;
  state.plan = "";
  state.fullMap = false;
  map.setMarks([]);
  map.useBoundaries(undefined);
  $("results").replaceChildren();
  if (!key) { say("Enter an API key to start. It stays in this tab only."); return; }
  map.loadLand(); // fetched beside the key's check and the export
  const me = await call("/v1/key");
  if (run !== state.run) return;
  if (!me.ok) { say(me.message, true); return; }
  state.plan = me.body.plan;
  state.started = started;
  const limit = me.body.rate_limit && me.body.rate_limit.requests_per_minute;
  say(`Key ${me.body.key_id} on the ${state.plan} plan (${limit ? limit + " requests a minute" : "no rate limit"}).`);
  state.fullMap = planAtLeast(state.plan, FULL_MAP_PLAN);
  $("map-line").classList.toggle("upsell", !state.fullMap);
  if (state.fullMap) {
    $("map-line").textContent = "";
    await loadFullMap(started, run);
    if (run !== state.run) return;
    // After the export, which fits the view to every area: asked for sooner, the boundaries
    // would be those of a view about to change, and their requests would slow the export's.
    map.useBoundaries(limit || null);
  } else {
    map.useBoundaries(limit || null);
    $("map-line").textContent = `The map shows the areas of the current results; the full map of every area needs the ${FULL_MAP_PLAN} plan (this key is on ${state.plan}).`;
  }
  await search(0);
}

/** The province choices and the radius bound, as the served API document states them. */
async function fromTheDocument() {
  const doc = await call("/v1/openapi.json", "");
  if (!doc.ok) return;
  const radius = doc.body.paths["/v1/areas/search"].get.parameters.find((p) => p.name === "radius");
  if (radius && radius.schema.maximum) $("radius").max = String(radius.schema.maximum);
  const param = doc.body.paths["/v1/areas"].get.parameters.find((p) => p.name === "province");
  const names = doc.body.components.schemas.AreaSummary.properties.province.enum;
  const letters = (s) => s.toLowerCase().replace(/[^a-z]/g, "");
  for (const slug of param.schema.enum) {
    const name = names.find((n) => letters(n) === letters(slug)) || slug;
    $("province").append(el("option", { value: slug, text: name }));
  }
}

function wire() {
  let typing = 0;
  $("q").addEventListener("input", () => { clearTimeout(typing); typing = setTimeout(() => search(0), TYPING_PAUSE_MS); });
  $("min-score").addEventListener("change", () => search(0));
  $("province").addEventListener("change", () => search(0));
  $("prev").addEventListener("click", () => search(Math.max(0, state.offset - PAGE)));
  $("next").addEventListener("click", () => search(state.offset + PAGE));
  $("bbox").addEventListener("click", () => { state.bbox = map.visibleBox(); state.circle = null; map.setCircle(null); search(0); });
  $("clear-place").addEventListener("click", () => { state.bbox = null; state.circle = null; map.setCircle(null); search(0); });
  $("zoom-in").addEventListener("click", () => map.zoom(1.5));
  $("zoom-out").addEventListener("click", () => map.zoom(1 / 1.5));
  $("zoom-all").addEventListener("click", () => map.fit());
  $("legend-scale").replaceChildren(...legendItems().map((item, i) =>
    el("li", { "data-colour": COLOURS[i] }, el("span", { class: "swatch " + item.cls, "aria-hidden": "true" }), item.label)));
  $("legend-marks").replaceChildren(
    el("li", { id: "legend-dot" }, el("span", { class: "swatch dot", "aria-hidden": "true" }), "no boundary: a dot, in its colour"),
    el("li", {}, el("span", { class: "swatch ring", "aria-hidden": "true" }), "the results listed"),
    el("li", {}, el("span", { class: "swatch outline", "aria-hidden": "true" }), "the area opened"));
  keyForm($("keyform"), start);
}

wire();
map.fit();
fromTheDocument();
if (savedKey()) start(savedKey());
