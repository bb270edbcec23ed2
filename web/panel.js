// The area panel: name, province, municipality, other names and truth_score; its
// standing (Get Area's include=rank) in its province and nationally, with its
// province's distribution of truth_score (Area statistics); for an area found
// at a point on the map, how it was found; the dimensions as bars with weight
// and sources; nearby areas; and, for growth keys and above, the history as a
// chart with period and granularity switches.

import { call, el, planAtLeast, query } from "/web/api.js";
import { distributionChart, historyChart } from "/web/chart.js";

const PERIODS = ["7d", "30d", "90d", "1y"];
const GRANULARITIES = ["daily", "weekly", "monthly"];
const HISTORY_PLAN = "growth";

export class Panel {
  constructor(root, { plan, open, compare, say }) {
    Object.assign(this, { root, plan, open, compare, say });
    this.period = "30d";
    this.granularity = "daily";
    this.asked = 0;
    // Each province's truth_score statistics, by slug: they change only with
    // the dataset, so one answer a province serves every area of it.
    this.stats = new Map();
  }

  /** Shows the area `id`; resolves to its detail (with its boundary), or null. */
  async show(id) {
    const asked = ++this.asked;
    const answer = await call(`/v1/areas/${encodeURIComponent(id)}?include=nearby,boundary,rank`);
    if (asked !== this.asked) return null; // another area was asked for since
    if (!answer.ok) { this.say(answer.message, true); return null; }
    await this.render(answer.body, []);
    return answer.body;
  }

  /**
   * Shows the area at `at` ({lat, lng}), from the area at a point, with how it
   * was found; a point in no area says so. Resolves to the area, or null.
   */
  async showAt(at) {
    const asked = ++this.asked;
    const point = place(at);
    if (Math.abs(at.lat) > 90 || Math.abs(at.lng) > 180) { this.nothingAt(point, "it is off the globe"); return null; }
    const answer = await call("/v1/areas/at" + query({ lat: round5(at.lat), lng: round5(at.lng), include: "nearby,boundary,rank" }));
    if (asked !== this.asked) return null;
    if (answer.status === 404 && answer.body && answer.body.error && answer.body.error.code === "no_area_here") {
      this.nothingAt(point, "no area's boundary holds it or lies within 250 m of it, and no area without a boundary has its centre within 10 km");
      return null;
    }
    if (!answer.ok) { this.say(answer.message, true); return null; }
    await this.render(answer.body, located(answer.body, point, this.open));
    return answer.body;
  }

  nothingAt(point, why) {
    this.area = null;
    this.root.replaceChildren(
      el("h2", { id: "panel-title", text: "No area here" }),
      el("p", { id: "panel-located", "data-by": "none" }, `Nothing answers for ${point}: ${why}.`));
  }

  async render(area, foundHow) {
    this.area = area;
    const title = el("h2", { id: "panel-title", text: area.name });
    const picked = this.compare.has(area.id);
    const toggle = el("button", { type: "button", id: "panel-compare", text: picked ? "Remove from compare" : "Add to compare" });
    toggle.addEventListener("click", () => {
      const now = this.compare.toggle(area.id, area.name);
      toggle.textContent = now ? "Remove from compare" : "Add to compare";
    });
    this.root.replaceChildren(
      title,
      ...foundHow,
      el("p", {}, `${area.province} · ${area.municipality}`),
      ...otherNames(area.other_names || []),
      el("p", {}, "truth_score ", el("span", { class: "score", id: "panel-score", text: String(area.truth_score) }), " of 10 (synthetic)"),
      toggle,
      el("h3", { text: "Standing" }),
      standing(area),
      el("div", { id: "distribution" }),
      el("h3", { text: "Dimensions" }),
      dimensionBars(area.dimensions),
      el("h3", { text: "Nearby (within 25 km)" }),
      this.nearby(area.nearby || []),
      el("h3", { text: "History" }),
      el("div", { id: "history" }));
    this.root.focus();
    await Promise.all([this.distribution(), this.history()]);
  }

  /** The province's truth_score distribution with this area marked, as a chart and in words. */
  async distribution() {
    const area = this.area;
    const box = this.root.querySelector("#distribution");
    const slug = area.province_slug;
    if (!this.stats.has(slug)) {
      const answer = await call("/v1/areas/stats" + query({ group_by: "province", province: slug }));
      if (!answer.ok) { box.replaceChildren(el("p", { class: "message error", text: answer.message })); return; }
      const group = answer.body.data.find((g) => g.group === slug);
      this.stats.set(slug, group ? group.measures.truth_score : null);
    }
    const s = this.stats.get(slug);
    if (this.area !== area) return; // another area is shown since
    if (!s || !s.count) { box.replaceChildren(el("p", { class: "small", text: `No statistics for ${area.province}.` })); return; }
    const words = `${area.province}'s ${s.count} areas: lowest ${s.min}, 10th percentile ${s.p10}, ` +
      `25th ${s.p25}, median ${s.p50}, 75th ${s.p75}, 90th ${s.p90}, highest ${s.max}; mean ${s.mean}.`;
    box.replaceChildren(el("figure", { class: "dist-box", id: "panel-distribution", "data-province": slug },
      distributionChart(s, area.truth_score, `truth_score across ${area.province}, with ${area.name}'s ${area.truth_score} marked`),
      el("figcaption", { class: "small", id: "panel-distribution-text" },
        `${words} The marker is ${area.name}, ${area.truth_score}. The line spans lowest to highest, ` +
        "the band the 10th to 90th percentile, the box the 25th to 75th, the tick the median.")));
  }

  nearby(list) {
    if (!list.length) return el("p", { class: "small", text: "No other area within 25 km." });
    const ul = el("ul", { class: "nearby", id: "nearby" });
    for (const n of list) {
      const b = el("button", { type: "button", "data-id": n.id, text: n.name });
      b.addEventListener("click", () => this.open(n.id));
      ul.append(el("li", {}, b, ` ${n.truth_score} · ${n.distance_km} km`));
    }
    return ul;
  }

  async history() {
    const box = this.root.querySelector("#history");
    if (!planAtLeast(this.plan(), HISTORY_PLAN)) {
      box.replaceChildren(el("p", { class: "upsell", id: "history-upsell",
        text: `Score history needs the ${HISTORY_PLAN} plan or above; this key is on the ${this.plan()} plan.` }));
      return;
    }
    const switches = el("div", { class: "switches" },
      choice("Period", "period", PERIODS, this.period, (v) => { this.period = v; this.history(); }),
      choice("Granularity", "granularity", GRANULARITIES, this.granularity, (v) => { this.granularity = v; this.history(); }));
    const id = encodeURIComponent(this.area.id);
    const answer = await call(`/v1/areas/${id}/history?period=${this.period}&granularity=${this.granularity}`);
    if (!answer.ok) { box.replaceChildren(switches, el("p", { class: "message error", text: answer.message })); return; }
    const h = answer.body;
    const last = h.history[h.history.length - 1];
    box.replaceChildren(switches,
      historyChart(h.history, `truth_score of ${this.area.name}, ${h.period}, ${this.granularity}`),
      el("p", { id: "history-summary" }, `Trend ${h.trend}, change ${h.change > 0 ? "+" : ""}${h.change}`,
        last ? ` · last point ${last.truth_score} on ${last.date}` : ""));
  }
}

/** A point as people write it: 26.24850°S 27.85400°E. */
function place({ lat, lng }) {
  const side = (v, positive, negative) => `${Math.abs(v).toFixed(5)}°${v >= 0 ? positive : negative}`;
  return `${side(lat, "N", "S")} ${side(lng, "E", "W")}`;
}

function round5(v) { return Math.round(v * 1e5) / 1e5; }

/** How the area at a point was found (its `located`), in words, with the other areas that hold the point. */
function located(area, point, open) {
  const { by, distance_km: km, also } = area.located;
  const how = {
    boundary: `${point} is inside its boundary.`,
    near_boundary: `${point} is just outside its boundary, ${km} km from it: the nearest boundary within 250 m.`,
    nearest: `${point} is in no boundary; this is the nearest centre of an area without one, ${km} km away.`,
  }[by] || `Found (${by}), ${km} km away.`;
  const line = el("p", { id: "panel-located", "data-by": by }, el("strong", { text: "At the point clicked: " }), how);
  if (!also || !also.length) return [line];
  const others = el("p", { id: "panel-also", class: "small" }, "Its boundary is the smallest of those holding the point; also holding it: ");
  also.forEach((id, i) => {
    const b = el("button", { type: "button", class: "link", "data-id": id, text: id });
    b.addEventListener("click", () => open(id));
    others.append(i ? ", " : "", b);
  });
  return [line, others];
}

/** "Also known as" the area's other names (former names, short forms, spellings), which
 *  search finds it by: one paragraph, or none when it has none. */
function otherNames(names) {
  if (!names.length) return [];
  return [el("p", { id: "panel-other-names", class: "small" }, el("strong", { text: "Also known as: " }), names.join(", "))];
}

/** 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 22nd, 101st, 111th... */
export function ordinal(n) {
  const tens = n % 100, ones = n % 10;
  const suffix = tens >= 11 && tens <= 13 ? "th" : ones === 1 ? "st" : ones === 2 ? "nd" : ones === 3 ? "rd" : "th";
  return `${n}${suffix}`;
}

/** A percentile rank (0 to 100, one decimal) as people say it: the nearest
 *  whole percentile, within 1 to 99, since the rank is never 0 or 100 itself. */
export function percentileWords(p) {
  return `${ordinal(Math.min(99, Math.max(1, Math.round(p))))} percentile`;
}

/** The area's truth_score standing (include=rank) in its province and nationally, in words. */
function standing(area) {
  const rank = area.rank && area.rank.truth_score;
  if (!rank) return el("p", { class: "small", id: "panel-standing", text: "No standing for this area." });
  const one = (r, where) => el("span", { "data-percentile": r.percentile, "data-position": r.position, "data-of": r.of },
    el("strong", { text: `${percentileWords(r.percentile)} ${where}` }), ` (${ordinal(r.position)} of ${r.of})`);
  return el("div", {},
    el("p", { id: "panel-standing" }, `truth_score ${area.truth_score}: `,
      one(rank.province, `in ${area.province}`), ", ", one(rank.national, "nationally"), "."),
    el("p", { class: "small", text: "Ranked among this dataset's areas; the seed's scores are synthetic, so this standing describes no real place." }));
}

function dimensionBars(dimensions) {
  const ul = el("ul", { class: "bars", id: "bars" });
  for (const [name, d] of Object.entries(dimensions)) {
    const fill = el("span");
    fill.style.width = `${(d.score / 10) * 100}%`;
    const bar = el("div", { class: "bar", role: "meter", "aria-valuemin": "0", "aria-valuemax": "10",
      "aria-valuenow": String(d.score), "aria-label": name.replace("_", " ") }, fill);
    ul.append(el("li", { "data-dimension": name },
      el("div", {}, el("strong", { text: name.replace("_", " ") }), ` ${d.score} · weight ${Math.round(d.weight * 1000) / 10}%`),
      bar,
      el("div", { class: "small", text: "sources: " + d.sources.join(", ") })));
  }
  return ul;
}

function choice(label, name, values, current, onChange) {
  const id = "history-" + name;
  const select = el("select", { id }, ...values.map((v) => el("option", { value: v, text: v })));
  select.value = current;
  select.addEventListener("change", () => onChange(select.value));
  return el("label", { for: id }, label + " ", select);
}
