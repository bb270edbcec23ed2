// The land under the explorer's map: southern Africa's land and the borders
// between its countries, from web/land.json (Natural Earth, public domain;
// made by tools/build_land.py, which writes the source and licence into the
// file). Fetched from this server only, decoded once, and drawn by map.js in
// its own projection: land filled under the grid, borders over it, dots on top.

const FILE = "/web/land.json";
const LAND = "#eceae2";
const BORDER = "#8f8a80";

export class Land {
  /** `changed` is called when the land has come in, to draw it. */
  constructor(changed) {
    this.changed = changed;
    this.rings = null;
    this.borders = null;
    this.loading = null;
  }

  /**
   * Fetches the file once. Resolves when the land is in or, if the file
   * cannot be read, when the map goes on without it: the dots alone are
   * still the whole answer.
   */
  load() {
    this.loading ||= fetch(FILE)
      .then((res) => (res.ok ? res.json() : Promise.reject(new Error(`${FILE}: ${res.status}`))))
      .then((file) => {
        this.rings = file.land.map((ring) => decode(ring, file));
        this.borders = file.borders.map((line) => decode(line, file));
        this.changed();
      })
      .catch(() => { this.rings = null; this.borders = null; });
    return this.loading;
  }

  /** Fills the land (holes by the even-odd rule); false while it is not in. */
  fill(ctx, projection) {
    if (!this.rings) return false;
    ctx.beginPath();
    for (const ring of this.rings) {
      trace(ctx, ring, projection);
      ctx.closePath();
    }
    ctx.fillStyle = LAND;
    ctx.fill("evenodd");
    return true;
  }

  /** Strokes the borders between countries, dashed. */
  stroke(ctx, projection) {
    if (!this.borders) return;
    ctx.beginPath();
    for (const line of this.borders) trace(ctx, line, projection);
    ctx.strokeStyle = BORDER;
    ctx.lineWidth = 1;
    ctx.setLineDash([4, 2]);
    ctx.stroke();
    ctx.setLineDash([]);
  }
}

/** Adds [lng, lat, …] to the path, through x = lng·kx + cx, y = lat·ky + cy. */
function trace(ctx, points, { kx, cx, ky, cy }) {
  ctx.moveTo(points[0] * kx + cx, points[1] * ky + cy);
  for (let i = 2; i < points.length; i += 2) ctx.lineTo(points[i] * kx + cx, points[i + 1] * ky + cy);
}

/** A ring or line of the file ("encoding" in it) as [lng, lat, lng, lat, …] in degrees. */
function decode(encoded, file) {
  const [west, south] = file.region;
  const out = new Float64Array(encoded.length);
  let x = 0, y = 0;
  for (let i = 0; i < encoded.length; i += 2) {
    x += encoded[i];
    y += encoded[i + 1];
    out[i] = west + x * file.unit;
    out[i + 1] = south + y * file.unit;
  }
  return out;
}
