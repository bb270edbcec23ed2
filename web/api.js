// The one way the pages call the API, as any client would: the key, kept in
// this tab's sessionStorage only, goes in the Authorization header (never in
// a URL); answers are read as JSON; refusals become sentences a person can act on.

const KEY_SLOT = "area-scoring-key";

/** Plans in rank order; a plan may do all that a lower one may. */
export const PLANS = ["free", "starter", "growth", "enterprise"];

export function savedKey() {
  return sessionStorage.getItem(KEY_SLOT) || "";
}

export function saveKey(key) {
  if (key) sessionStorage.setItem(KEY_SLOT, key);
  else sessionStorage.removeItem(KEY_SLOT);
}

/** Whether `plan` is `least` or above. */
export function planAtLeast(plan, least) {
  return PLANS.indexOf(plan) >= PLANS.indexOf(least);
}

/**
 * GET `path` with the key. Resolves to {status, ok, headers, text, body,
 * message}: body is the parsed JSON (or null), message explains a refusal.
 * With a `signal` the request can be called off: it then resolves with
 * `aborted` true, which callers drop without a word, as nobody waits for it.
 */
export async function call(path, key = savedKey(), { signal } = {}) {
  const headers = key ? { Authorization: "Bearer " + key } : {};
  let res, text;
  try {
    res = await fetch(path, { headers, signal });
    text = await res.text();
  } catch (e) {
    const aborted = e.name === "AbortError";
    return { status: 0, ok: false, aborted, headers: new Headers(), text: "", body: null,
      message: aborted ? "" : "The server did not answer (" + e.message + ")." };
  }
  let body = null;
  try { body = JSON.parse(text); } catch { body = null; }
  const answer = { status: res.status, ok: res.ok, headers: res.headers, text, body };
  if (!res.ok) answer.message = explain(answer);
  return answer;
}

/** A refusal in words, with what to do about it. */
export function explain(answer) {
  const error = (answer.body && answer.body.error) || {};
  const code = error.code || "error";
  const said = error.message || answer.text || "no details";
  switch (answer.status) {
    case 401:
      return `The key was refused (${answer.status} ${code}): ${said}. Enter a valid key.`;
    case 403: {
      const needed = error.required_plan ? ` Use a key on the ${error.required_plan} plan or above.` : "";
      return `Your plan does not include this (${answer.status} ${code}): ${said}.${needed}`;
    }
    case 429: {
      // Waiting does not make an unknown key valid.
      if (code === "too_many_unknown_keys") {
        return `The key was refused too often (${answer.status} ${code}): ${said}. Enter a valid key.`;
      }
      const wait = answer.headers.get("Retry-After");
      return `Too many requests (${answer.status} ${code}): wait ${wait} s (Retry-After), then try again.`;
    }
    default:
      return `The request failed (${answer.status} ${code}): ${said}.`;
  }
}

/** Builds a query string from the entries whose value is not empty. */
export function query(params) {
  const q = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== "" && value !== null && value !== undefined) q.append(name, String(value));
  }
  const s = q.toString();
  return s ? "?" + s : "";
}

/** Shortcut for document.createElement with text and attributes. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name === "text") node.textContent = value;
    else if (name === "class") node.className = value;
    else node.setAttribute(name, value);
  }
  for (const child of children) {
    if (child !== null && child !== undefined) {
      node.append(child instanceof Node ? child : String(child));
    }
  }
  return node;
}

/** Wires a key form (input #key, buttons) to sessionStorage; calls onKey(key). */
export function keyForm(form, onKey) {
  const input = form.querySelector("input");
  input.value = savedKey();
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    saveKey(input.value.trim());
    onKey(input.value.trim());
  });
  const forget = form.querySelector("[data-forget]");
  if (forget) {
    forget.addEventListener("click", () => {
      input.value = "";
      saveKey("");
      onKey("");
    });
  }
}
