// /docs: the API reference, built here from the served /v1/openapi.json, so
// it always says what the server it comes from does. Each operation shows its
// parameters with bounds and defaults, its response fields, its error codes,
// an example, and a form that sends it with the reader's key. Descriptions
// are the document's Markdown, rendered by markdown.js.

import { call, el, keyForm, saveKey, savedKey } from "/web/api.js";
import { markdown } from "/web/markdown.js";

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];
/** How much of an answer's body the try-it form shows. */
const SHOWN_CHARS = 100000;
let spec = null;

/** Follows a local "$ref" ("#/components/...") to what it names. */
function deref(node) {
  let seen = 0;
  while (node && node.$ref && seen++ < 10) {
    node = node.$ref.slice(2).split("/").reduce((at, part) => at && at[part], spec);
  }
  return node || {};
}

function typeOf(schema) {
  schema = deref(schema);
  if (schema.enum) return "one of " + schema.enum.join(", ");
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  let type = Array.isArray(schema.type) ? schema.type.join(" or ") : schema.type || "object";
  if (schema.type === "array" && schema.items) type = "array of " + typeOf(schema.items);
  return type;
}

/** A schema's bounds in words: minimum, maximum, lengths, pattern. */
function bounds(schema) {
  schema = deref(schema);
  const out = [];
  if (schema.minimum !== undefined) out.push("≥ " + schema.minimum);
  if (schema.exclusiveMinimum !== undefined) out.push("> " + schema.exclusiveMinimum);
  if (schema.maximum !== undefined && schema.maximum < 1e15) out.push("≤ " + schema.maximum);
  if (schema.minLength !== undefined) out.push("length ≥ " + schema.minLength);
  if (schema.maxLength !== undefined) out.push("length ≤ " + schema.maxLength);
  if (schema.pattern) {
    const p = schema.pattern;
    out.push("pattern " + (p.length > 60 ? p.slice(0, 60) + "…" : p));
  }
  return out.join("; ");
}

/** A value that fits `schema`, for the examples. */
function sample(schema, depth = 0) {
  schema = deref(schema);
  if (schema.examples && schema.examples.length) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (depth > 4) return null;
  if (type === "array") return schema.items ? [sample(schema.items, depth + 1)] : [];
  if (type === "object" || schema.properties) {
    const out = {};
    for (const [name, sub] of Object.entries(schema.properties || {})) out[name] = sample(sub, depth + 1);
    return out;
  }
  if (type === "integer") return schema.minimum !== undefined ? schema.minimum : 1;
  if (type === "number") return schema.minimum !== undefined ? schema.minimum : 1.5;
  if (type === "boolean") return true;
  if (type === "string") return schema.format === "date-time" ? "2026-11-23T00:00:00Z" : "text";
  return null;
}

/** A description's Markdown as nodes, in a block of its own (class "md"). */
function described(text) {
  return el("div", { class: "md" }, markdown(text || ""));
}

function table(head, rows) {
  return el("div", { class: "table-wrap" },
    el("table", {},
      el("thead", {}, el("tr", {}, ...head.map((h) => el("th", { scope: "col", text: h })))),
      el("tbody", {}, ...rows.map((r) => el("tr", {}, ...r.map((c) => el("td", {}, c)))))));
}

function parametersOf(pathItem, op) {
  return [...(pathItem.parameters || []), ...(op.parameters || [])].map(deref);
}

function parameterTable(params) {
  if (!params.length) return el("p", { text: "No parameters." });
  return table(["name", "in", "type", "bounds", "default", "description"], params.map((p) => [
    el("code", { text: p.name + (p.required ? " (required)" : "") }),
    p.in, typeOf(p.schema), bounds(p.schema),
    p.schema && deref(p.schema).default !== undefined ? String(deref(p.schema).default) : "",
    described(p.description),
  ]));
}

/** The 200 answer's JSON fields, and those of its list items. */
function responseFields(op) {
  const ok = deref((op.responses || {})["200"]);
  const content = ok.content || {};
  const media = content["application/json"] || Object.values(content)[0];
  if (!media || !media.schema) return ok.description ? described(ok.description) : el("p", { text: "No body." });
  const schema = deref(media.schema);
  const rows = [];
  for (const [name, sub] of Object.entries(schema.properties || {})) {
    rows.push([el("code", { text: name }), typeOf(sub), described(deref(sub).description)]);
    const item = deref(sub).items && deref(deref(sub).items);
    for (const [inner, innerSub] of Object.entries((item && item.properties) || {})) {
      rows.push([el("code", { text: name + "[]." + inner }), typeOf(innerSub), described(deref(innerSub).description)]);
    }
  }
  if (!rows.length) return el("div", {}, described(ok.description), el("p", { text: "(" + typeOf(schema) + ")" }));
  return table(["field", "type", "description"], rows);
}

/** Each error status with the codes its body may carry. */
function errorCodes(op) {
  const rows = [];
  for (const [status, response] of Object.entries(op.responses || {})) {
    if (Number(status) < 400) continue;
    const r = deref(response);
    const schema = deref(((r.content || {})["application/json"] || {}).schema);
    const code = deref(deref(((schema.properties || {}).error) || {}).properties?.code);
    const codes = code.enum || (code.const ? [code.const] : []);
    rows.push([status, el("code", { text: codes.join(", ") }), described(r.description)]);
  }
  return rows.length ? table(["status", "error.code", "when"], rows) : el("p", { text: "No error answers." });
}

function exampleTarget(path, params) {
  let target = path;
  const q = new URLSearchParams();
  for (const p of params) {
    const value = sample(p.schema);
    if (p.in === "path") target = target.replace("{" + p.name + "}", encodeURIComponent(value));
    else if (p.in === "query" && (p.required || (deref(p.schema).examples || []).length) && p.name !== "format") {
      q.append(p.name, value);
    }
  }
  const s = q.toString();
  return s ? target + "?" + s : target;
}

function example(method, path, params, op) {
  const target = exampleTarget(path, params);
  const auth = op.security && op.security.length === 0 ? "" : ' -H "Authorization: Bearer $KEY"';
  const verb = method === "get" ? "" : " -X " + method.toUpperCase();
  const ok = deref((op.responses || {})["200"]);
  const media = (ok.content || {})["application/json"];
  return el("div", {},
    el("pre", { text: `curl -s${verb}${auth} "${location.origin}${target}"` }),
    media && media.schema ? el("p", { class: "small", text: "The answer's shape, with values taken from the schema's examples and bounds:" }) : null,
    media && media.schema ? el("pre", { text: JSON.stringify(sample(media.schema), null, 1) }) : null);
}

/** The "Try it" form: one input per parameter, the answer's status, headers and body. */
function tryIt(method, path, params, op) {
  const form = el("form", { class: "tryit", "data-try": op.operationId });
  const inputs = {};
  for (const p of params) {
    if (p.in !== "path" && p.in !== "query") continue;
    const id = `${op.operationId}-${p.name}`;
    const schema = deref(p.schema);
    let input;
    if (schema.enum) {
      input = el("select", { id, name: p.name }, el("option", { value: "", text: "(not sent)" }),
        ...schema.enum.map((v) => el("option", { value: v, text: v })));
    } else {
      input = el("input", { id, name: p.name, type: "text", placeholder: String(sample(schema)) });
    }
    if (p.in === "path") input.value = String(sample(schema));
    inputs[p.name] = { input, param: p };
    form.append(el("label", { for: id }, `${p.name}${p.required ? " (required)" : ""} `), input);
  }
  const send = el("button", { type: "submit", text: `Send ${method.toUpperCase()}` });
  const status = el("p", { class: "status-line", "data-status": "", role: "status", "aria-live": "polite" });
  const headers = el("pre", { "data-headers": "" });
  const body = el("pre", { "data-body": "" });
  form.append(send, status, headers, body);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    let target = path;
    const q = new URLSearchParams();
    for (const { input, param } of Object.values(inputs)) {
      if (param.in === "path") target = target.replace("{" + param.name + "}", encodeURIComponent(input.value));
      else if (input.value !== "") q.append(param.name, input.value);
    }
    if (q.toString()) target += "?" + q.toString();
    status.textContent = "Sending…";
    // The key in the field, even if "Use key" was not pressed.
    const key = document.getElementById("key").value.trim() || savedKey();
    saveKey(key);
    const answer = method === "get" ? await call(target, key) : await other(method, target, key);
    status.textContent = `${answer.status} ${answer.message || "OK"} · ${method.toUpperCase()} ${target}`;
    status.dataset.status = String(answer.status);
    headers.textContent = [...answer.headers.entries()].map(([n, v]) => `${n}: ${v}`).join("\n");
    const shown = answer.body ? JSON.stringify(answer.body, null, 1) : answer.text;
    // An export of every area runs to megabytes: the page shows its start.
    body.textContent = shown.length > SHOWN_CHARS
      ? shown.slice(0, SHOWN_CHARS) + `\n… and ${shown.length - SHOWN_CHARS} more characters`
      : shown;
  });
  return form;
}

/** HEAD and OPTIONS, which `call` (GET only) does not send. */
async function other(method, target, key) {
  const res = await fetch(target, { method: method.toUpperCase(), headers: key ? { Authorization: "Bearer " + key } : {} });
  return { status: res.status, ok: res.ok, headers: res.headers, text: await res.text(), body: null,
    message: res.ok ? "" : "refused (see the headers)" };
}

function operation(method, path, pathItem, op) {
  const params = parametersOf(pathItem, op);
  return el("details", { class: "op", id: op.operationId },
    el("summary", {}, el("span", { class: "method", text: method.toUpperCase() }),
      el("code", { text: path }), " ", op.summary || ""),
    el("div", {},
      described(op.description),
      el("h4", { text: "Parameters" }), parameterTable(params),
      el("h4", { text: "Response fields (200)" }), responseFields(op),
      el("h4", { text: "Errors" }), errorCodes(op),
      el("h4", { text: "Example" }), example(method, path, params, op),
      el("h4", { text: "Try it" }), tryIt(method, path, params, op)));
}

async function main() {
  keyForm(document.getElementById("keyform"), () => {});
  const message = document.getElementById("doc-message");
  const answer = await call("/v1/openapi.json", "");
  if (!answer.ok || !answer.body) {
    message.textContent = answer.message || "The document could not be read.";
    message.classList.add("error");
    return;
  }
  spec = answer.body;
  message.textContent = `${spec.info.title} ${spec.info.version}`;
  document.getElementById("intro").append(described(spec.info.description));
  const toc = document.getElementById("toc");
  const ops = document.getElementById("operations");
  let count = 0;
  for (const [path, pathItem] of Object.entries(spec.paths)) {
    for (const method of METHODS) {
      const op = pathItem[method];
      if (!op) continue;
      count++;
      toc.append(el("li", {}, el("a", { href: "#" + op.operationId, text: `${method.toUpperCase()} ${path}` }), " ", op.summary || ""));
      ops.append(operation(method, path, pathItem, op));
    }
  }
  ops.dataset.operations = String(count);
  // A link to an operation (from the list above, or from elsewhere) opens it.
  const openLinked = () => {
    const target = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (target && target.tagName === "DETAILS") target.open = true;
  };
  window.addEventListener("hashchange", openLinked);
  openLinked();
}

main();
