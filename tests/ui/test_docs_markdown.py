"""/docs shows the OpenAPI document's descriptions as formatted text: the
Markdown the document uses (paragraphs, `* ` bullets, **strong**, code spans)
is rendered by web/markdown.js, and everything else in a description,
markup included, is shown as typed and never becomes part of the page."""

import re
import unittest

from pagetest import Pages, stop_server, use_server

# The page's renderer, imported as the page imports it; the description is
# rendered into a fresh element at the end of #intro.
RENDER = """
const [source, done] = [arguments[0], arguments[arguments.length - 1]];
import("/web/markdown.js").then(({ markdown }) => {
  const box = document.createElement("div");
  box.className = "md rendered-by-test";
  box.append(markdown(source));
  document.getElementById("intro").append(box);
  done({ html: box.innerHTML, text: box.textContent,
         elements: [...box.querySelectorAll("*")].map((e) => e.tagName.toLowerCase()) });
}, (e) => done({ error: String(e) }));
"""

# Text of each rendered description outside its code spans, where raw Markdown
# markers would show if a description were not rendered.
OUTSIDE_CODE = """
return [...document.querySelectorAll(".md")].map((md) => {
  const copy = md.cloneNode(true);
  copy.querySelectorAll("code").forEach((c) => c.remove());
  return copy.textContent;
});
"""


def setUpModule():
    use_server(())


def tearDownModule():
    stop_server()


class DocsMarkdown(Pages):
    def render(self, source):
        out = self.driver.execute_async_script(RENDER, source)
        self.assertNotIn("error", out)
        return out

    def test_docs_shows_no_raw_markdown_markers(self):
        _, _, document = self.server.get("/v1/openapi.json")
        intro = document["info"]["description"]
        self.open_docs()
        texts = self.driver.execute_script(OUTSIDE_CODE)
        self.assertGreater(len(texts), 50, "every description is rendered")
        raw = [t for t in texts if "**" in t or "`" in t]
        self.assertEqual(raw, [])
        # The introduction's bullets, strong words and code spans, as elements.
        outside = re.sub(r"`[^`]*`", "", intro)
        counts = self.driver.execute_script(
            "const i = document.getElementById('intro');"
            "return [i.querySelectorAll('li').length, i.querySelectorAll('strong').length,"
            " [...i.querySelectorAll('code')].map((c) => c.textContent)];")
        self.assertEqual(counts[0], len(re.findall(r"^\* ", intro, re.M)))
        self.assertEqual(counts[1], len(re.findall(r"\*\*[^*]+\*\*", outside)))
        self.assertEqual(counts[2], [c.replace("\n", " ") for c in re.findall(r"`([^`]+)`", intro)])
        # A code span holding `<key>` shows it as typed.
        self.assertTrue(any("<" in c for c in counts[2]), counts[2])
        self.shot("docs-markdown")

    def test_a_description_holding_script_is_shown_as_text(self):
        self.open_docs()
        hostile = ('<script>window.injected = 1</script> <img src=x onerror="window.injected = 2">\n'
                   '**bold <b>x</b>** `<i>code</i>` &amp;\n\n'
                   '* <iframe src="/docs"></iframe>')
        out = self.render(hostile)
        self.assertEqual(out["elements"], ["p", "strong", "code", "ul", "li"])
        for shown in ['<script>window.injected = 1</script>', '<img src=x onerror="window.injected = 2">',
                      "bold <b>x</b>", "<i>code</i>", "&amp;", '<iframe src="/docs"></iframe>']:
            self.assertIn(shown, out["text"])
        self.assertIsNone(self.driver.execute_script("return window.injected"))
        rendered = self.find(".rendered-by-test")
        self.assertIn("<script>window.injected = 1</script>", rendered.text)
        self.shot("docs-markdown-script")

    def test_the_renderer_reads_the_document_s_subset(self):
        self.open_docs()
        cases = {
            "one\ntwo\n\nthree": "<p>one two</p><p>three</p>",
            "* first\n  and more\n* second `x*y` **strong**":
                "<ul><li>first and more</li><li>second <code>x*y</code> <strong>strong</strong></li></ul>",
            "**`<key>` too**": "<strong><code>&lt;key&gt;</code> too</strong>",
            "`**not strong**`": "<code>**not strong**</code>",
            "`` a`b ``": "<code>a`b</code>",
            "** not** and `unclosed": "** not** and `unclosed",
            "X-RateLimit-* headers": "X-RateLimit-* headers",
            "a & b < c": "a &amp; b &lt; c",
        }
        for source, html in cases.items():
            self.assertEqual(self.render(source)["html"], html, source)


if __name__ == "__main__":
    unittest.main()
