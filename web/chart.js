// The history chart: an SVG line of truth_score over the dates the API
// returns, drawn here (no library). Each point is a circle carrying its date
// and score, so a reader (or a test) can tell what is drawn.

const SVG = "http://www.w3.org/2000/svg";
const W = 320, H = 150, PAD = { left: 30, right: 8, top: 8, bottom: 22 };

function node(tag, attrs, text) {
  const n = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
  if (text !== undefined) n.textContent = text;
  return n;
}

/** An <svg> chart of `points` ([{date, truth_score}]), titled `label`. */
export function historyChart(points, label) {
  const svg = node("svg", { class: "chart", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": label });
  svg.append(node("title", {}, label));
  if (!points.length) return svg;
  const scores = points.map((p) => p.truth_score);
  let low = Math.min(...scores), high = Math.max(...scores);
  if (high - low < 0.5) { low -= 0.25; high += 0.25; }
  const x = (i) => PAD.left + (points.length === 1 ? 0.5 : i / (points.length - 1)) * (W - PAD.left - PAD.right);
  const y = (s) => PAD.top + (1 - (s - low) / (high - low)) * (H - PAD.top - PAD.bottom);
  svg.append(node("line", { class: "axis", x1: PAD.left, y1: H - PAD.bottom, x2: W - PAD.right, y2: H - PAD.bottom }));
  svg.append(node("line", { class: "axis", x1: PAD.left, y1: PAD.top, x2: PAD.left, y2: H - PAD.bottom }));
  svg.append(node("text", { x: 2, y: y(high) + 4 }, high.toFixed(1)));
  svg.append(node("text", { x: 2, y: y(low) + 4 }, low.toFixed(1)));
  svg.append(node("text", { x: PAD.left, y: H - 6 }, points[0].date));
  svg.append(node("text", { x: W - PAD.right, y: H - 6, "text-anchor": "end" }, points[points.length - 1].date));
  svg.append(node("polyline", { class: "line", points: points.map((p, i) => `${x(i).toFixed(1)},${y(p.truth_score).toFixed(1)}`).join(" ") }));
  const r = points.length > 60 ? 1.2 : 2.5;
  points.forEach((p, i) => {
    const dot = node("circle", { class: "pt", cx: x(i).toFixed(1), cy: y(p.truth_score).toFixed(1), r, "data-date": p.date, "data-score": p.truth_score });
    dot.append(node("title", {}, `${p.date}: ${p.truth_score}`));
    svg.append(dot);
  });
  return svg;
}
