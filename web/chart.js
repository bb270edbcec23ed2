// The panel's charts, drawn here as SVG (no library): the history as a line of
// truth_score over the dates the API returns, and a group's distribution of
// truth_score with an area marked. Each drawn value carries its number as
// data-*, so a reader (or a test) can tell what is drawn.

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

const DW = 320, DH = 72, DPAD = { left: 10, right: 10, top: 10, bottom: 28 };

/**
 * An <svg> of a group's truth_score distribution on the 0 to 10 scale, from
 * the statistics the API stores (`s`: min, p10, p25, p50, p75, p90, max): a
 * line from min to max, a band from p10 to p90, a box from p25 to p75, a tick
 * at the median, and the area's `score` as a marker. Each part carries its
 * value as data-*, and the marker its score, so a reader (or a test) can tell
 * what is drawn; `label` names it for a screen reader.
 */
export function distributionChart(s, score, label) {
  const svg = node("svg", { class: "dist", viewBox: `0 0 ${DW} ${DH}`, role: "img", "aria-label": label });
  svg.append(node("title", {}, label));
  const x = (v) => DPAD.left + (v / 10) * (DW - DPAD.left - DPAD.right);
  const mid = DPAD.top + (DH - DPAD.top - DPAD.bottom) / 2;
  const h = DH - DPAD.top - DPAD.bottom;
  svg.append(node("line", { class: "axis", x1: x(0), y1: DH - DPAD.bottom, x2: x(10), y2: DH - DPAD.bottom }));
  for (const t of [0, 5, 10]) {
    svg.append(node("text", { x: x(t), y: DH - 6, "text-anchor": t === 0 ? "start" : t === 10 ? "end" : "middle" }, String(t)));
  }
  if (s.count > 0) {
    svg.append(node("line", { class: "range", x1: x(s.min), y1: mid, x2: x(s.max), y2: mid, "data-min": s.min, "data-max": s.max }));
    svg.append(node("rect", { class: "band", x: x(s.p10), y: mid - h / 4, width: x(s.p90) - x(s.p10), height: h / 2, "data-p10": s.p10, "data-p90": s.p90 }));
    svg.append(node("rect", { class: "box", x: x(s.p25), y: mid - h / 2, width: x(s.p75) - x(s.p25), height: h, "data-p25": s.p25, "data-p75": s.p75 }));
    svg.append(node("line", { class: "median", x1: x(s.p50), y1: mid - h / 2, x2: x(s.p50), y2: mid + h / 2, "data-p50": s.p50 }));
  }
  const m = x(score);
  const mark = node("path", { class: "mark", d: `M${m.toFixed(1)},${mid + h / 2 + 1} l-5,8 h10 z M${m.toFixed(1)},${DPAD.top - 2} v${h + 4}`, "data-score": score });
  mark.append(node("title", {}, `this area: ${score}`));
  svg.append(mark);
  return svg;
}
