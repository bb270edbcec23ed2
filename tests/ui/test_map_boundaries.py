"""The explorer fills each area's boundary by its truth_score, with a legend,
and a click anywhere on the map opens the area at that point (GET
/v1/areas/at), at 1280 px and at a phone's 360 px.

The fill is checked in the canvas's pixels: at points spread over South
Africa, each pixel must be the colour of the score of the area the API says
holds that point, where the page's own projection (data-view) puts it. The
boundaries come from Search's GeoJSON for a padded box around the view, at the
tolerance suited to the zoom, and a box already fetched is not asked for
again."""

import unittest
from urllib.parse import parse_qs, urlsplit

from selenium.webdriver.common.action_chains import ActionChains

from pagetest import Pages, stop_server, use_server

COLOURS = ["#440154", "#443983", "#31688e", "#21918c", "#35b779", "#90d743", "#fde725"]
STEPS = [3, 4, 5, 6, 7, 8]
# A point inside Soweto's cell, a little north of its centre (docs/api.md's example).
SOWETO = (-26.2485, 27.854)
# The middle of Lesotho, which lies inside South Africa but is none of its areas.
LESOTHO = (-29.55, 28.25)

# Where the page's projection puts (lat, lng), in CSS pixels of the canvas,
# and the colour there, read once the next frame is drawn.
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
  return [x, y, w, h, d[0], d[1], d[2]];
})));
"""

REQUESTS = """
return performance.getEntriesByType('resource').map((e) => new URL(e.name))
  .filter((u) => u.pathname === arguments[0]).map((u) => u.pathname + u.search);
"""


def setUpModule():
    use_server(("free", "growth"))


def tearDownModule():
    stop_server()


def rgb(hex_colour):
    return tuple(int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))


def colour_of(score):
    return rgb(COLOURS[sum(score >= s for s in STEPS)])


def near(a, b, tolerance=3):
    return all(abs(x - y) <= tolerance for x, y in zip(a, b))


class Boundaries(Pages):
    def full_map_with_boundaries(self):
        self.explore_as("growth")
        canvas = self.find("#map")
        self.wait(lambda: canvas.get_attribute("data-load-ms"), message="the full map drawn")
        self.wait_for_boundaries()
        return canvas

    def wait_for_boundaries(self):
        canvas = self.find("#map")
        self.wait(lambda: canvas.get_attribute("data-boundary-state") == "shown"
                  and int(canvas.get_attribute("data-boundaries") or 0) > 0, message="boundaries drawn")

    def pixels(self, places):
        return self.driver.execute_async_script(PIXELS, [list(p) for p in places])

    def requests(self, path):
        return self.driver.execute_script(REQUESTS, path)

    def area_at(self, lat, lng):
        status, _, body = self.server.get(f"/v1/areas/at?lat={lat}&lng={lng}", self.keys["growth"])
        return body if status == 200 else None

    def assert_filled_by_score(self):
        """Points on a grid over the view: each in a boundary shows its area's colour."""
        west, south, east, north = self.view_box()
        across = 15
        points = [(south + (north - south) * (i + 0.5) / across, west + (east - west) * (j + 0.5) / across)
                  for i in range(across) for j in range(across)]
        checked, matched, colours, wrong = 0, 0, set(), []
        for (lat, lng), (_, _, _, _, *colour) in zip(points, self.pixels(points)):
            area = self.area_at(lat, lng)
            if not area or area["located"]["by"] != "boundary":
                continue
            colour = tuple(colour)
            # A pixel on the pale edge between two cells, or on a line of the grid, is a blend of colours:
            # it is not counted. Every other one must be its area's colour, not a neighbour's.
            if not any(near(colour, rgb(c)) for c in COLOURS):
                continue
            checked += 1
            wanted = colour_of(area["truth_score"])
            if near(colour, wanted):
                matched += 1
                colours.add(wanted)
            else:
                wrong.append((lat, lng, area["id"], colour, wanted))
        self.assertGreater(checked, 40, "points inside boundaries, in view, off their edges")
        # A boundary simplified for the zoom may move an edge by under a pixel: a point
        # just inside an area may show its neighbour. Nearly none do.
        self.assertGreaterEqual(matched / checked, 0.95, f"{matched} of {checked} in their area's colour; {wrong}")
        self.assertGreaterEqual(len(colours), 3, "the scale's colours are used")

    def view_box(self):
        """The visible map as west, south, east, north, from the page's projection."""
        return self.driver.execute_script(
            "const m = document.getElementById('map'); const v = JSON.parse(m.dataset.view);"
            "const c = Math.cos(v.lat * Math.PI / 180);"
            "const hw = m.clientWidth / (2 * v.k * c), hh = m.clientHeight / (2 * v.k);"
            "return [v.lng - hw, v.lat - hh, v.lng + hw, v.lat + hh];")

    def click_at(self, lat, lng):
        [(x, y, w, h, *_)] = self.pixels([(lat, lng)])
        canvas = self.find("#map")
        ActionChains(self.driver).move_to_element_with_offset(canvas, round(x - w / 2), round(y - h / 2)).click().perform()

    def zoom_to_soweto(self):
        """Opens Soweto from a search (the map centres on it) and zooms in around it."""
        self.search("soweto")
        self.wait(lambda: self.first_result_is("soweto"), message="soweto first")
        self.find("#results li button[data-id=soweto]").click()
        self.wait(lambda: self.find("#panel-title").text == "Soweto", message="panel open")
        # A view some 50 km wide, whatever the first view was (a free key's map fits its results).
        canvas = self.find("#map")
        for _ in range(30):
            k = self.scale()
            if 300 <= k <= 1500:
                break
            canvas.send_keys("+" if k < 300 else "-")
            self.wait(lambda: self.scale() != k, message="zoomed")
        self.assertTrue(300 <= self.scale() <= 1500, self.scale())
        self.wait_for_boundaries()

    def scale(self):
        """The map's pixels per degree of latitude."""
        return float(self.driver.execute_script("return JSON.parse(document.getElementById('map').dataset.view).k"))

    def assert_click_shows_soweto(self):
        self.click_at(*SOWETO)
        self.wait(lambda: self.all("#panel-located"), message="the area at the point")
        self.wait(lambda: self.find("#panel-title").text == "Soweto", message="Soweto at the point")
        self.assertEqual(self.find("#panel-located").get_attribute("data-by"), "boundary")
        self.assertIn("inside its boundary", self.find("#panel-located").text)
        self.assertEqual(self.find("#map").get_attribute("data-picked"), "soweto")
        # The page asked the area at a point, for the point clicked.
        [asked] = self.requests("/v1/areas/at")[-1:]
        query = {k: float(v[0]) for k, v in parse_qs(urlsplit(asked).query).items() if k in ("lat", "lng")}
        self.assertAlmostEqual(query["lat"], SOWETO[0], delta=0.01)
        self.assertAlmostEqual(query["lng"], SOWETO[1], delta=0.01)
        self.assertIn("include=nearby%2Cboundary", asked)
        expected = self.area_at(query["lat"], query["lng"])
        self.assertEqual(expected["id"], "soweto")
        self.assertEqual(float(self.find("#panel-score").text), expected["truth_score"])


class Wide(Boundaries):
    def test_every_boundary_is_filled_by_its_score(self):
        self.full_map_with_boundaries()
        self.assert_filled_by_score()
        # All the country in view: the coarsest boundaries, every area filled, no dot left.
        canvas = self.find("#map")
        self.assertEqual(canvas.get_attribute("data-simplify"), "1000")
        _, _, listed = self.server.get("/v1/areas?limit=1", self.keys["growth"])
        self.assertEqual(int(canvas.get_attribute("data-boundaries")), listed["total"])
        self.assertEqual(int(canvas.get_attribute("data-drawn")), listed["total"])
        self.assertIn("simplified to 1000 m", self.find("#boundary-line").text)
        self.shot("explore-boundaries")

    def test_the_legend_gives_the_scale_the_dot_and_that_boundaries_are_generated(self):
        self.full_map_with_boundaries()
        scale = self.all("#legend-scale li")
        self.assertEqual([li.get_attribute("data-colour") for li in scale], COLOURS)
        swatches = self.driver.execute_script(
            "return [...document.querySelectorAll('#legend-scale .swatch')].map((s) => getComputedStyle(s).backgroundColor);")
        self.assertEqual(swatches, ["rgb(%d, %d, %d)" % rgb(c) for c in COLOURS])
        self.assertEqual([li.text for li in scale],
                         ["below 3", "3 to 4", "4 to 5", "5 to 6", "6 to 7", "7 to 8", "8 and above"])
        self.assertIn("0 to 10", self.find("#legend-title").text)
        self.assertIn("synthetic", self.find("#legend-title").text)
        self.assertIn("no boundary: a dot", self.find("#legend-dot").text)
        note = self.find("#legend-note").text
        self.assertIn("generated", note)
        self.assertIn("not official", note)

    def test_a_click_shows_the_area_at_that_point(self):
        self.full_map_with_boundaries()
        self.zoom_to_soweto()
        self.assert_click_shows_soweto()
        self.shot("explore-click-soweto")

    def test_a_click_where_no_area_is_says_so(self):
        self.full_map_with_boundaries()
        self.click_at(*LESOTHO)
        self.wait(lambda: self.find("#panel-title").text == "No area here", message="no area here")
        self.assertEqual(self.find("#panel-located").get_attribute("data-by"), "none")
        self.assertIn("Nothing answers for 29.5", self.find("#panel-located").text)
        self.assertEqual(self.find("#map").get_attribute("data-picked"), "")

    def test_the_zoom_chooses_the_tolerance_and_a_kept_box_is_not_asked_again(self):
        canvas = self.full_map_with_boundaries()
        shown = canvas.get_attribute("data-boundary-box")
        asked = [r for r in self.requests("/v1/areas/search.geojson")
                 if parse_qs(urlsplit(r).query)["bbox"][0] == shown]
        self.assertTrue(asked, "the box drawn was asked for")
        query = {k: v[0] for k, v in parse_qs(urlsplit(asked[0]).query).items()}
        self.assertEqual((query["geometry"], query["simplify"], query["limit"]), ("boundary", "1000", "50"))
        # The box asked for holds the view padded by half its size on each side.
        west, south, east, north = map(float, shown.split(","))
        w, s, e, n = self.view_box()
        box = [w - (e - w) / 2, s - (n - s) / 2, e + (e - w) / 2, n + (n - s) / 2]
        self.assertLessEqual(west, box[0] + 1e-6)
        self.assertLessEqual(south, box[1] + 1e-6)
        self.assertGreaterEqual(east, box[2] - 1e-6)
        self.assertGreaterEqual(north, box[3] - 1e-6)
        asked = len(self.requests("/v1/areas/search.geojson"))
        # Zoomed in, finer boundaries for a smaller box.
        canvas.send_keys("++++++")
        self.wait(lambda: canvas.get_attribute("data-simplify") in ("50", "250"), message="finer boundaries")
        self.wait_for_boundaries()
        self.assert_filled_by_score()
        finer = self.requests("/v1/areas/search.geojson")[asked:]
        self.assertTrue(finer and all("simplify=1000" not in r for r in finer), finer)
        # Back to the whole country: its box is kept, and not asked for again.
        self.find("#zoom-all").click()
        self.wait(lambda: canvas.get_attribute("data-simplify") == "1000", message="the whole country again")
        self.wait_for_boundaries()
        again = self.requests("/v1/areas/search.geojson")
        self.assertEqual([r for r in again if "simplify=1000" in r],
                         [r for r in again[:asked] if "simplify=1000" in r])

    def test_the_tolerance_follows_the_zoom_and_the_pages_the_plan(self):
        self.open("/explore")
        chosen = self.driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            import("/web/map.js").then(({ toleranceFor, pagesFor, paddedBox }) => done({
              // pixels per degree: 40 is the whole country at 1280 px, 20,000 a few streets
              tolerance: [40, 300, 500, 3000, 20000].map(toleranceFor),
              // requests a minute: free's 60, starter's 600, growth's 3,000, unlimited
              pages: [10, 60, 600, 3000, null].map(pagesFor),
              box: paddedBox([20, -30, 22, -28]),
              snapped: paddedBox([20.1, -29.9, 22.1, -27.9]),
              // zoomed in: a degree beyond the view at least, unless that box holds too many areas
              least: paddedBox([20, -30, 20.5, -29.5], 1),
            }));""")
        self.assertEqual(chosen["tolerance"], [1000, 250, 50, 10, 10])
        self.assertEqual(chosen["pages"], [1, 2, 20, 20, 20])
        # Half the view's size on each side, snapped outward to whole degrees here.
        self.assertEqual(chosen["box"], [19, -31, 23, -27])
        self.assertEqual(chosen["snapped"], [19, -31, 24, -26])
        self.assertEqual(chosen["least"], [19, -31, 22, -28])

    def test_a_free_key_is_told_to_zoom_in_for_boundaries(self):
        self.explore_as("free")
        canvas = self.find("#map")
        self.wait(lambda: canvas.get_attribute("data-boundary-state") == "too-many", message="too many areas")
        self.assertIn("zoom in to see their boundaries", self.find("#boundary-line").text)
        self.assertEqual(int(canvas.get_attribute("data-boundaries")), 0)
        # Zoomed in on Soweto, the few areas around it are filled, and a click finds it.
        self.zoom_to_soweto()
        self.assertGreater(int(canvas.get_attribute("data-boundaries")), 0)
        self.assert_click_shows_soweto()
        self.shot("explore-free-boundaries")


class Phone(Boundaries):
    """A phone's viewport, emulated: a headless window is never under 500 px."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": 360, "height": 780, "deviceScaleFactor": 2, "mobile": True})

    def test_at_360_px_the_fill_the_legend_and_a_click_work(self):
        self.full_map_with_boundaries()
        self.assertEqual(self.driver.execute_script("return window.innerWidth"), 360)
        self.assert_filled_by_score()
        self.assertEqual(len(self.all("#legend-scale li")), 7)
        self.assertTrue(self.find("#legend-note").is_displayed())
        self.driver.execute_script("document.getElementById('map').scrollIntoView()")
        self.shot("explore-boundaries-360")
        self.zoom_to_soweto()
        self.driver.execute_script("document.getElementById('map').scrollIntoView()")
        self.assert_click_shows_soweto()
        wide = self.driver.execute_script("return document.documentElement.scrollWidth")
        self.assertLessEqual(wide, 360, "nothing overflows")
        self.shot("explore-click-360")


if __name__ == "__main__":
    unittest.main()
