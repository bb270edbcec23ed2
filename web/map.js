// The map: every area on a canvas, drawn by this code alone (no tiles, no
// library) in an equirectangular projection whose longitudes are narrowed by
// the cosine of the view's latitude, so shapes near South Africa keep their
// proportions. An area whose boundary is in is that boundary, filled by its
// truth_score; any other area is a dot of the same colour. The colours are
// viridis's steps, which colour-blind readers can tell apart. Under them lie
// the land and the borders between countries of southern Africa, from
// web/land.json (Natural Earth, made by tools/build_land.py; its source and
// licence are inside it), fetched from this server once a key is entered.
// The boundaries come from Search's GeoJSON, through Boundaries (below).

import { drawGrid } from "/web/grid.js";
import { call, query } from "/web/api.js";
import { Land } from "/web/land.js";

/** Upper bounds of the colour steps; a score at or above the last is the top step. */
export const STEPS = [3, 4, 5, 6, 7, 8];
export const COLOURS = ["#440154", "#443983", "#31688e", "#21918c", "#35b779", "#90d743", "#fde725"];
const KM_PER_DEGREE = 111.32;
/** The sea once the land is in; before it, the plain ground the dots had alone. */
const SEA = "#d6e4ef";
const GROUND = "#eef3f7";

export function step(score) {
  let i = 0;
  while (i < STEPS.length && score >= STEPS[i]) i++;
  return i;
}

/** The legend's items: a class (.b0 … .b6) and the range in words. */
export function legendItems() {
  return COLOURS.map((_, i) => {
    const low = i === 0 ? 0 : STEPS[i - 1];
    const high = i === STEPS.length ? 10 : STEPS[i];
    return { cls: "b" + i, label: i === 0 ? `below ${high}` : i === STEPS.length ? `${low} and above` : `${low} to ${high}` };
  });
}

export class AreaMap {
  /**
   * `onPlace(at)` is offered every click's point first, and returns true when
   * it took it (a search around it); otherwise `onPoint(at)` gets it (the area
   * at that point). `onBoundaries(state, text)` hears how the boundaries stand.
   */
  constructor(canvas, { onPoint, onPlace, onBoundaries }) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.onPoint = onPoint;
    this.onPlace = onPlace;
    this.ids = [];
    this.lat = new Float64Array(0);
    this.lng = new Float64Array(0);
    this.order = new Uint32Array(0);
    this.stepStarts = [];
    this.center = { lat: -29, lng: 25 };
    this.k = 40; // pixels per degree of latitude
    this.circle = null;
    this.selected = -1;
    this.picked = null;
    this.pending = false;
    this.drawnView = "";
    this.marksVersion = 0;
    this.hidden = null;
    this.land = new Land(() => this.redraw());
    this.boundaries = new Boundaries(() => this.redraw(), onBoundaries);
    this.listen();
    new ResizeObserver(() => this.redraw()).observe(canvas);
  }

  /** Replaces the dots with `rows` ({id, lat, lng, truth_score}). */
  setMarks(rows) {
    const n = rows.length;
    this.ids = new Array(n);
    this.lat = new Float64Array(n);
    this.lng = new Float64Array(n);
    const steps = new Uint8Array(n);
    const counts = new Array(COLOURS.length).fill(0);
    for (let i = 0; i < n; i++) {
      const r = rows[i];
      this.ids[i] = r.id;
      this.lat[i] = r.lat;
      this.lng[i] = r.lng;
      steps[i] = step(r.truth_score);
      counts[steps[i]]++;
    }
    // Dots grouped by colour, so that each colour is one path and one fill.
    this.stepStarts = [];
    let at = 0;
    for (const c of counts) { this.stepStarts.push(at); at += c; }
    this.stepStarts.push(at);
    const next = this.stepStarts.slice(0, -1);
    this.order = new Uint32Array(n);
    for (let i = 0; i < n; i++) this.order[next[steps[i]]++] = i;
    this.canvas.dataset.marks = String(n);
    this.marksVersion++;
    this.selected = -1;
    this.highlighted = [];
    this.redraw();
  }

  /** Fits the view to the dots (or to South Africa when there are none). */
  fit() {
    let [w, s, e, n] = [16.3, -35, 33, -22];
    if (this.lat.length) {
      w = Infinity; s = Infinity; e = -Infinity; n = -Infinity;
      for (let i = 0; i < this.lat.length; i++) {
        w = Math.min(w, this.lng[i]); e = Math.max(e, this.lng[i]);
        s = Math.min(s, this.lat[i]); n = Math.max(n, this.lat[i]);
      }
    }
    this.center = { lat: (s + n) / 2, lng: (w + e) / 2 };
    const { width, height } = this.size();
    const cos = Math.cos(this.center.lat * Math.PI / 180);
    const spanX = Math.max((e - w) * cos, 0.05);
    const spanY = Math.max(n - s, 0.05);
    this.k = 0.9 * Math.min(width / spanX, height / spanY);
    this.redraw();
  }

  /** Boundaries for a key whose plan allows `requestsPerMinute` (null: unlimited); undefined: none. */
  useBoundaries(requestsPerMinute) {
    if (requestsPerMinute === undefined) this.boundaries.off();
    else this.boundaries.use(requestsPerMinute);
    this.drawnView = ""; // the view is asked for afresh at the next frame
    this.redraw();
  }

  /** Fetches the land and borders (web/land.js) and draws them once they are in. */
  loadLand() {
    return this.land.load();
  }

  size() {
    return { width: this.canvas.clientWidth || 300, height: this.canvas.clientHeight || 300 };
  }

  project(lat, lng) {
    const { width, height } = this.size();
    const cos = Math.cos(this.center.lat * Math.PI / 180);
    return [(lng - this.center.lng) * this.k * cos + width / 2, (this.center.lat - lat) * this.k + height / 2];
  }

  unproject(x, y) {
    const { width, height } = this.size();
    const cos = Math.cos(this.center.lat * Math.PI / 180);
    return { lat: this.center.lat - (y - height / 2) / this.k, lng: this.center.lng + (x - width / 2) / (this.k * cos) };
  }

  /** The visible area as minLng, minLat, maxLng, maxLat, kept in range. */
  visibleBox() {
    const { width, height } = this.size();
    const nw = this.unproject(0, 0);
    const se = this.unproject(width, height);
    const clamp = (v, limit) => Math.max(-limit, Math.min(limit, v));
    const round = (v) => Math.round(v * 1e5) / 1e5;
    return [round(clamp(nw.lng, 180)), round(clamp(se.lat, 90)), round(clamp(se.lng, 180)), round(clamp(nw.lat, 90))];
  }

  setCircle(circle) { this.circle = circle; this.redraw(); }

  /** Rings the dots of these areas (the current results) on the full map. */
  highlight(ids) {
    this.highlighted = ids.map((id) => this.ids.indexOf(id)).filter((i) => i >= 0);
    this.redraw();
  }

  /** Rings the area's dot and brings it to the centre, at the same zoom. */
  select(id) {
    this.selected = this.ids.indexOf(id);
    this.picked = null;
    if (this.selected >= 0) this.center = { lat: this.lat[this.selected], lng: this.lng[this.selected] };
    this.redraw();
  }

  /**
   * Outlines `area` (Get Area's detail, with its `boundary` when asked for),
   * or rings its centre when it has no boundary, without moving the view;
   * null outlines nothing.
   */
  pick(area) {
    this.selected = -1;
    this.picked = area && {
      id: area.id,
      rings: area.boundary ? ringsOf(area.boundary) : [],
      lat: area.coordinates.lat,
      lng: area.coordinates.lng,
    };
    this.canvas.dataset.picked = area ? area.id : "";
    this.redraw();
  }

  zoom(factor, x, y) {
    const { width, height } = this.size();
    const at = this.unproject(x ?? width / 2, y ?? height / 2);
    this.k = Math.max(2, Math.min(200000, this.k * factor));
    const moved = this.project(at.lat, at.lng);
    this.pan(moved[0] - (x ?? width / 2), moved[1] - (y ?? height / 2));
  }

  pan(dx, dy) {
    const cos = Math.cos(this.center.lat * Math.PI / 180);
    this.center = { lat: this.center.lat - dy / this.k, lng: this.center.lng + dx / (this.k * cos) };
    this.center.lat = Math.max(-85, Math.min(85, this.center.lat));
    this.redraw();
  }

  /** Draws on the next frame, once however many changes came before it. */
  redraw() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => { this.pending = false; this.draw(); });
  }

  draw() {
    const { width, height } = this.size();
    const ratio = window.devicePixelRatio || 1;
    if (this.canvas.width !== Math.round(width * ratio)) this.canvas.width = Math.round(width * ratio);
    if (this.canvas.height !== Math.round(height * ratio)) this.canvas.height = Math.round(height * ratio);
    const ctx = this.ctx;
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.fillStyle = this.land.rings ? SEA : GROUND;
    ctx.fillRect(0, 0, width, height);
    const n = this.lat.length;
    const r = n > 5000 ? 1.5 : n > 500 ? 2.5 : 4;
    const cos = Math.cos(this.center.lat * Math.PI / 180);
    const kx = this.k * cos, cx = width / 2 - this.center.lng * kx;
    const ky = -this.k, cy = height / 2 + this.center.lat * this.k;
    const projection = { kx, cx, ky, cy };
    if (this.land.fill(ctx, projection)) this.canvas.dataset.land = String(this.land.rings.length);
    const view = this.visibleBox();
    const filled = this.boundaries.fill(ctx, projection, view);
    drawGrid(ctx, this, width, height);
    this.land.stroke(ctx, projection);
    const hidden = this.hiddenDots();
    let drawn = 0;
    for (let s = 0; s < COLOURS.length; s++) {
      ctx.fillStyle = COLOURS[s];
      ctx.beginPath();
      for (let j = this.stepStarts[s]; j < this.stepStarts[s + 1]; j++) {
        const i = this.order[j];
        if (hidden && hidden[i]) continue; // its boundary is drawn
        const x = this.lng[i] * kx + cx, y = this.lat[i] * ky + cy;
        if (x < -r || y < -r || x > width + r || y > height + r) continue;
        ctx.rect(x - r, y - r, 2 * r, 2 * r);
        drawn++;
      }
      ctx.fill();
    }
    // Areas drawn, by boundary or by dot; each area is drawn one way only.
    this.canvas.dataset.drawn = String(drawn + filled);
    this.canvas.dataset.boundaries = String(filled);
    const shown = this.boundaries.current();
    this.canvas.dataset.simplify = shown ? String(shown.tolerance) : "";
    this.canvas.dataset.boundaryBox = shown ? shown.box.join(",") : "";
    this.canvas.dataset.view = JSON.stringify({ lat: this.center.lat, lng: this.center.lng, k: this.k });
    this.overlays(projection);
    const seen = `${this.center.lat},${this.center.lng},${this.k},${width},${height}`;
    if (seen !== this.drawnView) {
      this.drawnView = seen;
      this.boundaries.want(view, this.k);
    }
  }

  /** For each dot, whether its area's boundary is drawn instead; null when none is. */
  hiddenDots() {
    const shown = this.boundaries.current();
    if (!shown) return null;
    if (this.hidden && this.hidden.shown === shown && this.hidden.marks === this.marksVersion) return this.hidden.dots;
    const dots = new Uint8Array(this.ids.length);
    for (let i = 0; i < dots.length; i++) dots[i] = shown.ids.has(this.ids[i]) ? 1 : 0;
    this.hidden = { shown, marks: this.marksVersion, dots };
    return dots;
  }

  overlays(projection) {
    const ctx = this.ctx;
    ctx.strokeStyle = "#a40e26";
    ctx.lineWidth = 1.5;
    for (const i of this.highlighted || []) {
      const [x, y] = this.project(this.lat[i], this.lng[i]);
      ctx.beginPath();
      ctx.arc(x, y, 5, 0, 2 * Math.PI);
      ctx.stroke();
    }
    if (this.circle) {
      const [x, y] = this.project(this.circle.lat, this.circle.lng);
      const rpx = (this.circle.km / KM_PER_DEGREE) * this.k;
      ctx.strokeStyle = "#a40e26";
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.arc(x, y, Math.max(rpx, 3), 0, 2 * Math.PI);
      ctx.stroke();
    }
    const ring = (lat, lng) => {
      const [x, y] = this.project(lat, lng);
      ctx.strokeStyle = "#000";
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.arc(x, y, 8, 0, 2 * Math.PI);
      ctx.stroke();
    };
    if (this.selected >= 0) ring(this.lat[this.selected], this.lng[this.selected]);
    if (this.picked && this.picked.rings.length) {
      // Outlined twice, white under black, so that it shows on every colour of the scale.
      ctx.beginPath();
      for (const r of this.picked.rings) { trace(ctx, r, projection); ctx.closePath(); }
      ctx.strokeStyle = "#fff";
      ctx.lineWidth = 4;
      ctx.stroke();
      ctx.strokeStyle = "#000";
      ctx.lineWidth = 2;
      ctx.stroke();
    } else if (this.picked) {
      ring(this.picked.lat, this.picked.lng);
    }
  }

  /** A click (or Enter, at the centre): a search around the point, or the area at it. */
  click(x, y) {
    const at = this.unproject(x, y);
    if (this.onPlace(at)) return;
    this.onPoint(at);
  }

  listen() {
    const c = this.canvas;
    let down = null;
    c.addEventListener("pointerdown", (e) => {
      down = { x: e.offsetX, y: e.offsetY, moved: 0 };
      c.setPointerCapture(e.pointerId);
    });
    c.addEventListener("pointermove", (e) => {
      if (!down) return;
      const dx = e.offsetX - down.x, dy = e.offsetY - down.y;
      down.moved += Math.abs(dx) + Math.abs(dy);
      down.x = e.offsetX; down.y = e.offsetY;
      this.pan(-dx, -dy);
    });
    c.addEventListener("pointerup", (e) => {
      if (down && down.moved < 5) this.click(e.offsetX, e.offsetY);
      down = null;
    });
    c.addEventListener("wheel", (e) => {
      e.preventDefault();
      this.zoom(e.deltaY < 0 ? 1.25 : 0.8, e.offsetX, e.offsetY);
    }, { passive: false });
    c.addEventListener("keydown", (e) => {
      const step = 40;
      const moves = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
      if (moves[e.key]) { this.pan(...moves[e.key]); e.preventDefault(); }
      else if (e.key === "+" || e.key === "=") { this.zoom(1.5); e.preventDefault(); }
      else if (e.key === "-") { this.zoom(1 / 1.5); e.preventDefault(); }
      else if (e.key === "Enter") {
        const { width, height } = this.size();
        this.click(width / 2, height / 2);
        e.preventDefault();
      }
    });
  }
}

/** The tolerances (metres) Search serves simplified boundaries at, finest first. */
export const TOLERANCES = [10, 50, 250, 1000];
const METRES_PER_DEGREE = 111320;
/** Search's largest page. */
const SEARCH_PAGE = 50;
/** The most pages of boundaries one view may ask for (1,000 areas), on any plan. */
const MOST_PAGES = 20;
/** Boxes of boundaries kept, the least recently shown dropped first. */
const KEPT_BOXES = 12;
/**
 * How far beyond the view (degrees) boundaries are asked for at least, when
 * that box does not hold too many areas: a boundary whose centre is farther
 * out than half the view may still reach into it, and the seed's widest cells
 * reach some 2° from their centres (most under 0.25°).
 */
const LEAST_PAD = 1;
/** How long the view must stay still before its boundaries are asked for. */
const SETTLE_MS = 150;
/** The edges between neighbouring boundaries. */
const EDGE = "rgba(255, 255, 255, 0.6)";

/** The coarsest tolerance that stays within a pixel at `pixelsPerDegree`. */
export function toleranceFor(pixelsPerDegree) {
  const metresPerPixel = METRES_PER_DEGREE / pixelsPerDegree;
  let chosen = TOLERANCES[0];
  for (const t of TOLERANCES) if (t <= metresPerPixel) chosen = t;
  return chosen;
}

/**
 * The box to ask Search for around the visible one ([minLng, minLat, maxLng,
 * maxLat]): Search holds an area by its centre, so the view is padded by half
 * its size on each side, or a polygon reaching in from beyond the edge would
 * be missing; by `least` degrees at least, when given. The box is snapped
 * outward to a grid of a power of two degrees near the padding, so that a
 * view moved a little asks for the same box again, and finds it kept.
 */
export function paddedBox([w, s, e, n], least = 0) {
  const padX = Math.max((e - w) / 2, least), padY = Math.max((n - s) / 2, least);
  const grid = 2 ** Math.round(Math.log2(Math.max(padX, padY, 1e-4)));
  const down = (v) => Math.floor(v / grid) * grid, up = (v) => Math.ceil(v / grid) * grid;
  return [Math.max(-180, down(w - padX)), Math.max(-90, down(s - padY)), Math.min(180, up(e + padX)), Math.min(90, up(n + padY))];
}

/**
 * How many pages of boundaries a view may ask for on a plan of
 * `requestsPerMinute` (null: unlimited): a thirtieth of the minute's budget,
 * so that moving about the map leaves room for searching (2 pages, 100 areas,
 * on the free plan's 60).
 */
export function pagesFor(requestsPerMinute) {
  if (requestsPerMinute === null) return MOST_PAGES;
  return Math.max(1, Math.min(MOST_PAGES, Math.floor(requestsPerMinute / 30)));
}

/**
 * The areas' boundaries around the view, filled by truth_score: asked from
 * `GET /v1/areas/search.geojson?bbox=…&geometry=boundary&simplify=…` in
 * pages, at the tolerance suited to the zoom, for the padded box of the view:
 * padded by LEAST_PAD at least, or, when that box holds too many areas, by
 * half the view only. Boxes are kept by tolerance and box: a kept box at the
 * view's tolerance that holds the view with a margin serves it without a
 * request. A box holding more areas than the plan's pages allow is not
 * fetched past its first page: those areas stay dots, and the line under the
 * map says to zoom in. Moving on calls off the requests for the box left
 * behind, and a late answer for it is dropped.
 */
export class Boundaries {
  /** `changed()` redraws the map; `told(state, text)` hears how the boundaries stand. */
  constructor(changed, told = () => {}) {
    this.changed = changed;
    this.told = told;
    this.kept = new Map();
    this.shown = null;
    this.loading = null;
    this.pages = 0;
    this.timer = 0;
  }

  /** Starts afresh for a key whose plan allows `requestsPerMinute` (null: unlimited). */
  use(requestsPerMinute) {
    this.off();
    this.pages = pagesFor(requestsPerMinute);
  }

  /** No boundaries: no key, or another key being checked. */
  off() {
    clearTimeout(this.timer);
    if (this.loading) this.loading.controller.abort();
    this.loading = null;
    this.kept.clear();
    this.shown = null;
    this.pages = 0;
    this.told("off", "");
    this.changed();
  }

  /** The box drawn, when it holds boundaries (not when it held too many areas). */
  current() {
    return this.shown && !this.shown.tooMany ? this.shown : null;
  }

  /** The view changed: asks for its boundaries once it has been still for a moment. */
  want(visible, pixelsPerDegree) {
    clearTimeout(this.timer);
    if (!this.pages) return;
    this.timer = setTimeout(() => this.ask(visible, pixelsPerDegree), SETTLE_MS);
  }

  async ask(visible, pixelsPerDegree) {
    const tolerance = toleranceFor(pixelsPerDegree);
    const margin = padBy(visible, 0.25);
    let found = null;
    for (const entry of this.kept.values()) {
      if (!entry.tooMany && entry.tolerance === tolerance && holds(entry.box, margin)) found = entry;
    }
    if (found) {
      if (this.loading) this.loading.controller.abort();
      this.loading = null;
      this.show(found);
      return;
    }
    const wide = paddedBox(visible, LEAST_PAD);
    const narrow = paddedBox(visible);
    const key = `${tolerance}:${wide.join(",")}`;
    if (this.loading && this.loading.key === key) return; // asked already
    if (this.loading) this.loading.controller.abort();
    const loading = { key, controller: new AbortController() };
    this.loading = loading;
    this.told("loading", "Loading the boundaries around the view…");
    let entry = await this.box(wide, tolerance, loading.controller.signal);
    if (entry && entry.tooMany && narrow.some((v, i) => v !== wide[i]) && this.loading === loading) {
      entry = await this.box(narrow, tolerance, loading.controller.signal);
    }
    if (this.loading !== loading) return; // the view has moved on since
    this.loading = null;
    if (entry) this.show(entry);
  }

  /** A box's boundaries, kept or loaded (and kept); null when a request failed or was called off. */
  async box(box, tolerance, signal) {
    const key = `${tolerance}:${box.join(",")}`;
    const kept = this.kept.get(key);
    if (kept) return kept;
    const entry = await this.load(box, tolerance, signal);
    if (entry) this.kept.set(key, entry);
    return entry;
  }

  /** One box's boundaries, every page of them; null when a request failed (told) or was called off. */
  async load(box, tolerance, signal) {
    const page = (offset) => call("/v1/areas/search.geojson" + query({
      bbox: box.join(","), geometry: "boundary", simplify: tolerance, limit: SEARCH_PAGE, offset,
    }), undefined, { signal });
    const first = await page(0);
    if (!first.ok) return this.failed(first);
    const total = first.body.total;
    const pages = Math.ceil(total / SEARCH_PAGE);
    if (pages > this.pages) return { tolerance, box, total, tooMany: true };
    const rest = await Promise.all(Array.from({ length: pages - 1 }, (_, i) => page((i + 1) * SEARCH_PAGE)));
    const refused = rest.find((answer) => !answer.ok);
    if (refused) return this.failed(refused);
    return boxOf(tolerance, box, total, [first, ...rest].flatMap((answer) => answer.body.features));
  }

  failed(answer) {
    if (!answer.aborted) this.told("failed", "The boundaries could not be loaded. " + answer.message);
    return null;
  }

  show(entry) {
    // The most recently shown box is dropped last.
    for (const [key, kept] of this.kept) {
      if (kept === entry) { this.kept.delete(key); this.kept.set(key, entry); break; }
    }
    while (this.kept.size > KEPT_BOXES) this.kept.delete(this.kept.keys().next().value);
    this.shown = entry;
    if (entry.tooMany) {
      this.told("too-many", `${entry.total.toLocaleString("en")} areas around the view: zoom in to see their boundaries `
        + `(drawn for up to ${(this.pages * SEARCH_PAGE).toLocaleString("en")} at a time with this key's plan). Meanwhile each is a dot.`);
    } else {
      const bare = entry.bare.size ? `; ${entry.bare.size.toLocaleString("en")} without one are dots` : "";
      const n = entry.areas.length;
      this.told("shown", `${n.toLocaleString("en")} ${n === 1 ? "boundary" : "boundaries"} around the view, simplified to ${entry.tolerance} m${bare}.`);
    }
    this.changed();
  }

  /**
   * Fills the boundaries that reach into `view` by truth_score and strokes
   * their edges; returns how many. Larger ones are filled first, so that an
   * area inside another shows, as the area at a point answers the smaller.
   * Rings are filled by the non-zero rule: served rings wind as RFC 7946 has
   * it (holes against their shell), so a hole stays open.
   */
  fill(ctx, projection, [w, s, e, n]) {
    const shown = this.current();
    if (!shown) return 0;
    const inView = shown.areas.filter((a) => a.bbox[0] <= e && a.bbox[2] >= w && a.bbox[1] <= n && a.bbox[3] >= s);
    for (const a of inView) {
      ctx.beginPath();
      for (const ring of a.rings) { trace(ctx, ring, projection); ctx.closePath(); }
      ctx.fillStyle = COLOURS[a.step];
      ctx.fill("nonzero");
    }
    ctx.beginPath();
    for (const a of inView) for (const ring of a.rings) { trace(ctx, ring, projection); ctx.closePath(); }
    ctx.strokeStyle = EDGE;
    ctx.lineWidth = 0.5;
    ctx.stroke();
    return inView.length;
  }
}

/** A kept box: its areas with a boundary (rings, step, extent), largest first, and the ids of those without. */
function boxOf(tolerance, box, total, features) {
  const areas = [];
  const ids = new Set();
  const bare = new Set();
  for (const f of features) {
    if (ids.has(f.id) || bare.has(f.id)) continue; // a page boundary moved by a reload
    if (!f.geometry) { bare.add(f.id); continue; }
    const rings = ringsOf(f.geometry);
    let [w, s, e, n] = [Infinity, Infinity, -Infinity, -Infinity];
    for (const r of rings) {
      for (let i = 0; i < r.length; i += 2) {
        w = Math.min(w, r[i]); e = Math.max(e, r[i]);
        s = Math.min(s, r[i + 1]); n = Math.max(n, r[i + 1]);
      }
    }
    ids.add(f.id);
    areas.push({ id: f.id, step: step(f.properties.truth_score), rings, bbox: [w, s, e, n], size: (e - w) * (n - s) });
  }
  areas.sort((a, b) => b.size - a.size || (a.id < b.id ? -1 : 1));
  return { tolerance, box, total, areas, ids, bare };
}

/** A Polygon's or MultiPolygon's rings, each as [lng, lat, lng, lat, …]. */
function ringsOf(geometry) {
  const polygons = geometry.type === "Polygon" ? [geometry.coordinates] : geometry.coordinates;
  return polygons.flat(1).map((ring) => Float64Array.from(ring.flatMap((p) => [p[0], p[1]])));
}

/** Adds [lng, lat, …] to the path, through x = lng·kx + cx, y = lat·ky + cy. */
function trace(ctx, points, { kx, cx, ky, cy }) {
  ctx.moveTo(points[0] * kx + cx, points[1] * ky + cy);
  for (let i = 2; i < points.length; i += 2) ctx.lineTo(points[i] * kx + cx, points[i + 1] * ky + cy);
}

function padBy([w, s, e, n], share) {
  const x = (e - w) * share, y = (n - s) * share;
  return [w - x, s - y, e + x, n + y];
}

function holds(outer, inner) {
  return outer[0] <= inner[0] && outer[1] <= inner[1] && outer[2] >= inner[2] && outer[3] >= inner[3];
}
