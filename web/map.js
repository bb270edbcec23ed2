// The map: every area a dot on a canvas, drawn by this code alone (no tiles,
// no library, no request of its own) in an equirectangular projection whose
// longitudes are narrowed by the cosine of the view's latitude, so shapes
// near South Africa keep their proportions. Dots are coloured by truth_score
// in viridis's steps, which colour-blind readers can tell apart. Under them
// lie the land and the borders between countries of southern Africa, from
// web/land.json (Natural Earth, made by tools/build_land.py; its source and
// licence are inside it), fetched from this server once a key is entered.

import { drawGrid } from "/web/grid.js";
import { Land } from "/web/land.js";

/** Upper bounds of the colour steps; a score at or above the last is the top step. */
export const STEPS = [3, 4, 5, 6, 7, 8];
export const COLOURS = ["#440154", "#443983", "#31688e", "#21918c", "#35b779", "#90d743", "#fde725"];
const KM_PER_DEGREE = 111.32;
/** How near (px) a click must be to a dot to pick it. */
const PICK_PX = 12;
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
  constructor(canvas, { onPick, onPlace }) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.onPick = onPick;
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
    this.pending = false;
    this.land = new Land(() => this.redraw());
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
    if (this.selected >= 0) this.center = { lat: this.lat[this.selected], lng: this.lng[this.selected] };
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
    drawGrid(ctx, this, width, height);
    this.land.stroke(ctx, projection);
    let drawn = 0;
    for (let s = 0; s < COLOURS.length; s++) {
      ctx.fillStyle = COLOURS[s];
      ctx.beginPath();
      for (let j = this.stepStarts[s]; j < this.stepStarts[s + 1]; j++) {
        const i = this.order[j];
        const x = this.lng[i] * kx + cx, y = this.lat[i] * ky + cy;
        if (x < -r || y < -r || x > width + r || y > height + r) continue;
        ctx.rect(x - r, y - r, 2 * r, 2 * r);
        drawn++;
      }
      ctx.fill();
    }
    this.canvas.dataset.drawn = String(drawn);
    this.canvas.dataset.view = JSON.stringify({ lat: this.center.lat, lng: this.center.lng, k: this.k });
    this.overlays();
  }

  overlays() {
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
    if (this.selected >= 0) {
      const [x, y] = this.project(this.lat[this.selected], this.lng[this.selected]);
      ctx.strokeStyle = "#000";
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.arc(x, y, 8, 0, 2 * Math.PI);
      ctx.stroke();
    }
  }

  /** The index of the dot nearest (x, y) within PICK_PX, or -1. */
  nearest(x, y) {
    let best = -1, bestD = PICK_PX * PICK_PX;
    for (let i = 0; i < this.lat.length; i++) {
      const [px, py] = this.project(this.lat[i], this.lng[i]);
      const d = (px - x) ** 2 + (py - y) ** 2;
      if (d <= bestD) { best = i; bestD = d; }
    }
    return best;
  }

  click(x, y) {
    if (this.onPlace(this.unproject(x, y))) return;
    const i = this.nearest(x, y);
    if (i >= 0) this.onPick(this.ids[i]);
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
