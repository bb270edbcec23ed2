// Compare: 2 to 5 areas picked from the results or the area panel, shown side
// by side per dimension with the winners exactly as the API's compare
// answer names them (the page never decides a winner itself).

import { call, el } from "/web/api.js";

export const MIN_AREAS = 2, MAX_AREAS = 5;

export class Compare {
  constructor({ list, button, clear, out, say }) {
    Object.assign(this, { list, button, clear, out, say });
    this.picked = new Map(); // id -> name
    button.addEventListener("click", () => this.run());
    clear.addEventListener("click", () => { this.picked.clear(); this.out.replaceChildren(); this.render(); });
    this.onChange = () => {};
    this.render();
  }

  has(id) { return this.picked.has(id); }

  /** Adds or removes an area; refuses a sixth. Returns whether it is picked. */
  toggle(id, name) {
    if (this.picked.has(id)) this.picked.delete(id);
    else if (this.picked.size >= MAX_AREAS) this.say(`At most ${MAX_AREAS} areas can be compared.`, true);
    else this.picked.set(id, name);
    this.render();
    return this.picked.has(id);
  }

  render() {
    this.list.replaceChildren(...[...this.picked].map(([id, name]) =>
      el("li", {}, name + " ", el("button", { type: "button", "aria-label": `Remove ${name} from the comparison`, "data-remove": id, text: "×" }))));
    for (const b of this.list.querySelectorAll("[data-remove]")) {
      b.addEventListener("click", () => this.toggle(b.dataset.remove));
    }
    const n = this.picked.size;
    this.button.disabled = n < MIN_AREAS || n > MAX_AREAS;
    this.button.textContent = `Compare ${n} area${n === 1 ? "" : "s"}`;
    this.onChange();
  }

  async run() {
    const ids = [...this.picked.keys()].map(encodeURIComponent).join(",");
    const answer = await call(`/v1/areas/compare?ids=${ids}`);
    if (!answer.ok) { this.say(answer.message, true); return; }
    this.out.replaceChildren(table(answer.body));
  }
}

/** Rows: overall, then each dimension; columns: the areas in the API's order. */
function table(result) {
  const areas = result.areas;
  const dims = Object.keys(result.winner.by_dimension);
  const cell = (area, value, winnerId) => {
    const won = area.id === winnerId;
    return el("td", { class: won ? "winner" : "", "data-area": area.id, "data-winner": won ? "yes" : "no" },
      String(value ?? "–"), won ? el("span", { text: " ★ winner" }) : null);
  };
  const rows = [
    el("tr", { "data-dimension": "overall" }, el("th", { scope: "row", text: "truth_score" }),
      ...areas.map((a) => cell(a, a.truth_score, result.winner.overall))),
    ...dims.map((d) => el("tr", { "data-dimension": d }, el("th", { scope: "row", text: d.replace("_", " ") }),
      ...areas.map((a) => cell(a, a.dimensions[d], result.winner.by_dimension[d])))),
  ];
  return el("div", { class: "table-wrap" },
    el("table", { id: "comparison-table" },
      el("caption", { class: "small", text: "Winners as the API names them (★); synthetic scores." }),
      el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "" }), ...areas.map((a) => el("th", { scope: "col", text: a.name })))),
      el("tbody", {}, ...rows)));
}
