// The Markdown of the OpenAPI document's descriptions, as /docs shows them.
// The document's descriptions are CommonMark, but they use only a subset:
// paragraphs, `* ` bullets (with indented continuation lines), **strong** and
// `code spans`. This renders that subset and shows anything else as typed.
//
// Nodes are built with createElement and text nodes, never from HTML, so a
// description's `<`, `>` and `&` are always text: a description cannot add
// markup, scripts or attributes to the page.

/** A bullet: `* ` or `- ` at the start of a line (CommonMark's list markers). */
const BULLET = /^[*-] +(.*)$/;
/** A list item's continuation: a line indented by at least two spaces. */
const CONTINUATION = /^ {2,}(\S.*)$/;

/** The description's blocks, each {kind: "p" | "ul", text | items}. */
export function blocks(source) {
  const out = [];
  let paragraph = null;
  let list = null;
  for (const line of String(source).replace(/\r\n?/g, "\n").split("\n")) {
    const bullet = line.match(BULLET);
    const more = line.match(CONTINUATION);
    if (!line.trim()) {
      paragraph = null;
      list = null;
    } else if (bullet) {
      if (!list) out.push((list = { kind: "ul", items: [] }));
      list.items.push(bullet[1]);
      paragraph = null;
    } else if (list) {
      // Indented or not, a text line after an item continues it (CommonMark's
      // "lazy" continuation), until a blank line ends the list.
      list.items[list.items.length - 1] += "\n" + (more ? more[1] : line.trim());
    } else if (paragraph) {
      paragraph.text += "\n" + line.trim();
    } else {
      out.push((paragraph = { kind: "p", text: line.trim() }));
    }
  }
  return out;
}

/**
 * Code spans first: a run of n backticks opens one, the next run of exactly n
 * closes it, and nothing inside is read as Markdown (`*` and `<key>` stay as
 * they are). A run without its closer is text. Returns [{code} | {text}].
 */
export function codeSpans(text) {
  const out = [];
  let at = 0;
  let plain = "";
  while (at < text.length) {
    if (text[at] !== "`") { plain += text[at++]; continue; }
    let run = 0;
    while (text[at + run] === "`") run++;
    const closer = findRun(text, at + run, run);
    if (closer < 0) { plain += "`".repeat(run); at += run; continue; }
    if (plain) out.push({ text: plain });
    plain = "";
    let code = text.slice(at + run, closer).replace(/\n/g, " ");
    if (code.length > 2 && code.startsWith(" ") && code.endsWith(" ") && code.trim()) code = code.slice(1, -1);
    out.push({ code });
    at = closer + run;
  }
  if (plain) out.push({ text: plain });
  return out;
}

/** Where the next run of exactly `length` backticks from `from` starts, or -1. */
function findRun(text, from, length) {
  let at = from;
  while (at < text.length) {
    if (text[at] !== "`") { at++; continue; }
    let run = 0;
    while (text[at + run] === "`") run++;
    if (run === length) return at;
    at += run;
  }
  return -1;
}

/**
 * `**strong**` over the pieces of codeSpans: an opening `**` is followed by a
 * non-space, a closing one follows a non-space; a strong span may hold code
 * spans. Unpaired `**` is text. Returns [{text} | {code} | {strong: pieces}].
 */
export function strong(pieces) {
  // Split the text pieces at each `**`, keeping them as delimiters.
  const tokens = [];
  for (const piece of pieces) {
    if (piece.code !== undefined) { tokens.push(piece); continue; }
    const parts = piece.text.split("**");
    parts.forEach((part, i) => {
      if (i > 0) tokens.push({ delimiter: true });
      if (part) tokens.push({ text: part });
    });
  }
  const charAt = (i, last) => {
    const t = tokens[i];
    if (!t) return " ";
    if (t.delimiter) return "*";
    const s = t.text !== undefined ? t.text : t.code;
    return last ? s[s.length - 1] : s[0];
  };
  const canOpen = (i) => !/\s/.test(charAt(i + 1, false));
  const canClose = (i) => !/\s/.test(charAt(i - 1, true));
  const out = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (!t.delimiter) { out.push(t); continue; }
    let close = -1;
    if (canOpen(i)) {
      for (let j = i + 2; j < tokens.length; j++) {
        if (tokens[j].delimiter) { if (canClose(j)) close = j; break; }
      }
    }
    if (close < 0) { out.push({ text: "**" }); continue; }
    out.push({ strong: tokens.slice(i + 1, close) });
    i = close;
  }
  return out;
}

/** Appends the inline pieces to `parent` as text, <code> and <strong> nodes. */
function appendInline(parent, pieces) {
  for (const piece of pieces) {
    if (piece.code !== undefined) {
      const code = document.createElement("code");
      code.textContent = piece.code;
      parent.append(code);
    } else if (piece.strong) {
      const b = document.createElement("strong");
      appendInline(b, piece.strong);
      parent.append(b);
    } else {
      // A line break inside a paragraph is a space, as in CommonMark.
      parent.append(document.createTextNode(piece.text.replace(/\n/g, " ")));
    }
  }
}

/** The inline Markdown of one paragraph, as nodes in a fragment. */
export function inline(text) {
  const fragment = document.createDocumentFragment();
  appendInline(fragment, strong(codeSpans(String(text))));
  return fragment;
}

/**
 * A description as nodes: <p> and <ul><li> blocks, or, for a description of
 * one paragraph (a table cell's, usually), its inline nodes alone.
 */
export function markdown(source) {
  const found = blocks(source || "");
  if (found.length === 1 && found[0].kind === "p") return inline(found[0].text);
  const fragment = document.createDocumentFragment();
  for (const block of found) {
    if (block.kind === "p") {
      const p = document.createElement("p");
      p.append(inline(block.text));
      fragment.append(p);
    } else {
      const ul = document.createElement("ul");
      for (const item of block.items) {
        const li = document.createElement("li");
        li.append(inline(item));
        ul.append(li);
      }
      fragment.append(ul);
    }
  }
  return fragment;
}
