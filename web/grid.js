// The map's grid: lines of latitude and longitude, spaced so that about a
// dozen cross the view, labelled with their side of the equator or the prime
// meridian (34°S, 25°E; 12°N, 5°W elsewhere on Earth).

const GRID = "rgba(70, 90, 110, 0.16)";
const LABEL = "#3d444b";
const HALO = "rgba(255, 255, 255, 0.8)";
/** Spacings to choose from, in degrees, finest first. */
const SPACINGS = [0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10, 30];
const LINES_ACROSS = 12;

/**
 * A grid line's label: 25°E, 12.50°W, 34°S, 0° (the equator and the prime
 * meridian have no side), with decimals when the lines are under a degree apart.
 */
export function degrees(value, every, positive, negative) {
  const digits = every < 1 ? 2 : 0;
  const shown = Math.abs(value).toFixed(digits);
  if (Number(shown) === 0) return (0).toFixed(digits) + "°";
  return shown + "°" + (value > 0 ? positive : negative);
}

/** Draws the grid of `map` (its project and unproject) over a width × height view. */
export function drawGrid(ctx, map, width, height) {
  const nw = map.unproject(0, 0), se = map.unproject(width, height);
  const span = Math.max(se.lng - nw.lng, nw.lat - se.lat);
  const every = SPACINGS.find((g) => span / g <= LINES_ACROSS) || SPACINGS[SPACINGS.length - 1];
  const labels = [];
  ctx.strokeStyle = GRID;
  ctx.lineWidth = 1;
  ctx.beginPath();
  for (let lng = Math.ceil(nw.lng / every) * every; lng <= se.lng; lng += every) {
    const [x] = map.project(0, lng);
    ctx.moveTo(x, 0); ctx.lineTo(x, height);
    labels.push([degrees(lng, every, "E", "W"), x + 2, height - 3]);
  }
  for (let lat = Math.ceil(se.lat / every) * every; lat <= nw.lat; lat += every) {
    const [, y] = map.project(lat, 0);
    ctx.moveTo(0, y); ctx.lineTo(width, y);
    labels.push([degrees(lat, every, "N", "S"), 2, y - 2]);
  }
  ctx.stroke();
  // A pale halo keeps the labels legible over the boundaries' darker colours.
  ctx.font = "10px sans-serif";
  ctx.lineJoin = "round";
  ctx.lineWidth = 3;
  ctx.strokeStyle = HALO;
  ctx.fillStyle = LABEL;
  for (const [text, x, y] of labels) {
    ctx.strokeText(text, x, y);
    ctx.fillText(text, x, y);
  }
}
