"""The explorer's map draws southern Africa's land and borders (web/land.json,
Natural Earth) under the areas, from this server alone, and labels its grid
by side (S, E). The pixels are read from the canvas where the page's own
projection (data-view: centre and pixels per degree) puts known places.

The last test leaves tests/ui/screenshots/explorer.png, docs/browser.md's picture
(docs/explorer.png is a copy of it)."""

import unittest

from harness import browser
from pagetest import Pages, stop_server, use_server

LAND = (0xEC, 0xEA, 0xE2)
SEA = (0xD6, 0xE4, 0xEF)
COLOURS = ["#440154", "#443983", "#31688e", "#21918c", "#35b779", "#90d743", "#fde725"]
STEPS = [3, 4, 5, 6, 7, 8]
# Places no area is near, well away from any grid line: the Kalahari in
# Botswana, and the Indian Ocean south-east of South Africa.
BOTSWANA = (-23.4, 22.3)
OCEAN = (-34.2, 30.7)
# A point in the Karoo, inside one of the wide inland cells of the seed's boundaries.
KAROO = (-30.6, 22.3)

PIXELS = """
const canvas = document.getElementById("map");
const view = JSON.parse(canvas.dataset.view);
const [w, h] = [canvas.clientWidth, canvas.clientHeight];
const ratio = canvas.width / w;
const ctx = canvas.getContext("2d");
const done = arguments[arguments.length - 1];
requestAnimationFrame(() => done(arguments[0].map(([lat, lng]) => {
  const x = (lng - view.lng) * view.k * Math.cos(view.lat * Math.PI / 180) + w / 2;
  const y = (view.lat - lat) * view.k + h / 2;
  const d = ctx.getImageData(Math.round(x * ratio), Math.round(y * ratio), 1, 1).data;
  return [d[0], d[1], d[2]];
})));
"""


def setUpModule():
    use_server(("growth",))


def tearDownModule():
    stop_server()


def rgb(hex_colour):
    return tuple(int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))


def colour_of(score):
    return rgb(COLOURS[sum(score >= s for s in STEPS)])


def near(a, b, tolerance=3):
    return all(abs(x - y) <= tolerance for x, y in zip(a, b))


class MapLand(Pages):
    @classmethod
    def setUpClass(cls):
        # The picture's size in docs/browser.md: the map, the panel and the comparison in one view.
        cls.driver = browser(width=1400, height=1000)

    def full_map(self):
        self.explore_as("growth")
        canvas = self.find("#map")
        self.wait(lambda: canvas.get_attribute("data-load-ms"), message="the full map drawn")
        self.wait(lambda: canvas.get_attribute("data-land"), message="the land drawn")
        return canvas

    def pixels(self, places):
        return [tuple(p) for p in self.driver.execute_async_script(PIXELS, [list(p) for p in places])]

    def test_the_land_lies_under_the_areas(self):
        canvas = self.full_map()
        self.wait(lambda: canvas.get_attribute("data-boundary-state") == "shown", message="boundaries drawn")
        land, sea = self.pixels([BOTSWANA, OCEAN])
        self.assertTrue(near(land, LAND), f"Botswana is land: {land}")
        self.assertTrue(near(sea, SEA), f"the ocean is sea: {sea}")
        # A boundary on land shows its own colour: the land is drawn before it.
        _, _, area = self.server.get("/v1/areas/at?lat=%s&lng=%s" % KAROO, self.keys["growth"])
        self.assertEqual(area["located"]["by"], "boundary")
        [inside] = self.pixels([KAROO])
        self.assertTrue(near(inside, colour_of(area["truth_score"])), f"{area['id']}: {inside}")
        self.shot("explore-land")

    def test_nothing_but_this_server_is_asked(self):
        self.full_map()
        origins = self.driver.execute_script(
            "return [...new Set(performance.getEntriesByType('resource')"
            ".map((e) => new URL(e.name).origin))];")
        self.assertEqual(origins, [self.server.base])
        loaded = self.driver.execute_script(
            "return performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname);")
        self.assertIn("/web/land.json", loaded)

    def test_the_grid_is_labelled_by_side(self):
        self.full_map()
        labels = self.driver.execute_script("""
            const ctx = document.getElementById("map").getContext("2d");
            const seen = [];
            const fillText = ctx.fillText;
            ctx.fillText = function (text, ...rest) { seen.push(text); return fillText.call(this, text, ...rest); };
            return new Promise((done) => {
              document.getElementById("zoom-all").click();
              requestAnimationFrame(() => requestAnimationFrame(() => { ctx.fillText = fillText; done(seen); }));
            });""")
        # South Africa is south of the equator and east of Greenwich.
        south = [t for t in labels if t.endswith("°S")]
        east = [t for t in labels if t.endswith("°E")]
        self.assertTrue(south and east, labels)
        self.assertEqual(sorted(south + east), sorted(labels))
        self.assertFalse([t for t in labels if "-" in t], labels)
        # Elsewhere, the sign chooses the side.
        named = self.driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            import("/web/grid.js").then(({ degrees }) => done([
              degrees(12, 1, "N", "S"), degrees(-34, 1, "N", "S"), degrees(-5, 1, "E", "W"),
              degrees(0, 1, "E", "W"), degrees(-0.5, 0.5, "E", "W"), degrees(0.001, 0.01, "N", "S")]));""")
        self.assertEqual(named, ["12°N", "34°S", "5°W", "0°", "0.50°W", "0.00°"])

    def test_the_readme_picture(self):
        """Every area over the land, the results of "johannes" ringed, Johannesburg's panel, three areas compared."""
        self.full_map()
        self.open_johannesburg()
        self.wait(lambda: self.all("#history svg circle.pt"), message="history drawn")
        for box in self.all("#results li input[type=checkbox]")[:3]:
            box.click()
        self.find("#zoom-all").click()
        self.driver.execute_script("window.scrollTo(0, 0)")
        self.shot("explorer")


if __name__ == "__main__":
    unittest.main()
