"""The pages in Debian's headless chromium, against the real release binary
(tests/ui/harness.py): one test per behaviour the issue names. Each test
saves a screenshot of what it looked at into tests/ui/screenshots/."""

import unittest

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from pagetest import Pages, stop_server, use_server


def setUpModule():
    use_server(("free", "growth"))


def tearDownModule():
    stop_server()


class Landing(Pages):
    def test_a_browser_gets_the_landing_page_with_its_links(self):
        self.open("/")
        links = {a.get_attribute("pathname") for a in self.all("main a")}
        self.assertTrue({"/docs", "/explore", "/v1/openapi.json", "/healthz"} <= links, links)
        self.shot("landing")


class Docs(Pages):
    def test_docs_lists_every_operation(self):
        _, _, document = self.server.get("/v1/openapi.json")
        operations = {op["operationId"] for item in document["paths"].values()
                      for name, op in item.items() if name != "parameters"}
        self.open_docs()
        shown = {s.get_attribute("id") for s in self.all("#operations details.op")}
        self.assertEqual(shown, operations)
        self.assertEqual(int(self.find("#operations").get_attribute("data-operations")), len(operations))
        # Each with its parameters, fields, errors, an example and a try-it form.
        incomplete = self.driver.execute_script(
            "return [...document.querySelectorAll('#operations details.op')].filter((op) =>"
            " op.querySelectorAll('h4').length !== 5 || !op.querySelector('pre')"
            " || !op.querySelector('form[data-try]')).map((op) => op.id);")
        self.assertEqual(incomplete, [])
        self.shot("docs")

    def test_every_control_is_labelled(self):
        self.open_docs()
        for section in self.all("#operations details.op")[:3]:
            section.find_element(By.TAG_NAME, "summary").click()
        self.assertGreater(self.assert_controls_labelled_and_reachable("/docs"), 20)

    def test_try_it_returns_200_for_a_valid_key(self):
        self.open_docs()
        form, status = self.try_operation("#listAreas", self.keys["growth"])
        self.assertEqual(status.get_attribute("data-status"), "200")
        body = form.find_element(By.CSS_SELECTOR, "[data-body]").text
        self.assertIn('"total"', body)
        self.assertIn("etag", form.find_element(By.CSS_SELECTOR, "[data-headers]").text.lower())
        self.shot("docs-try-it-200")

    def test_try_it_shows_the_401_for_a_bad_key(self):
        self.open_docs()
        form, status = self.try_operation("#listAreas", "ask_not_a_key")
        self.assertEqual(status.get_attribute("data-status"), "401")
        self.assertIn("invalid_api_key", status.text)
        self.assertIn("invalid_api_key", form.find_element(By.CSS_SELECTOR, "[data-body]").text)
        self.shot("docs-try-it-401")


class Explore(Pages):
    def test_a_growth_key_draws_one_mark_per_area(self):
        self.open("/explore")
        self.use_key(self.keys["growth"])
        canvas = self.find("#map")
        self.wait(lambda: canvas.get_attribute("data-load-ms"), message="the full map drawn")
        _, _, page = self.server.get("/v1/areas?limit=1", self.keys["growth"])
        self.assertEqual(int(canvas.get_attribute("data-marks")), page["total"])
        # The first view fits every area: all of them are drawn.
        self.assertEqual(int(canvas.get_attribute("data-drawn")), page["total"])
        self.shot("explore")

    def test_searching_johannes_opens_johannesburg_with_bars_and_history(self):
        self.explore_as("growth")
        self.open_johannesburg()
        self.assertEqual(len(self.all("#bars li")), 7)
        self.wait(lambda: self.all("#history svg circle.pt"), message="history drawn")
        _, _, area = self.server.get("/v1/areas/johannesburg", self.keys["growth"])
        last = self.all("#history svg circle.pt")[-1]
        self.assertEqual(float(last.get_attribute("data-score")), area["truth_score"])
        self.assertEqual(float(self.find("#panel-score").text), area["truth_score"])
        # The period switch asks the API again: 7 daily points.
        Select(self.find("#history-period")).select_by_value("7d")
        self.wait(lambda: len(self.all("#history svg circle.pt")) == 7, message="7 points")
        self.shot("explore-panel")

    def test_comparing_three_areas_marks_the_api_winners(self):
        self.explore_as("growth")
        self.search("cape")
        self.wait(lambda: "q=cape&" in (self.find("#results").get_attribute("data-request") or ""),
                  message="cape results")
        boxes = self.all("#results li input[type=checkbox]")[:3]
        ids = [b.get_attribute("data-id") for b in boxes]
        for box in boxes:
            box.click()
        self.find("#compare").click()
        self.wait(lambda: self.all("#comparison-table"), message="comparison drawn")
        _, _, expected = self.server.get("/v1/areas/compare?ids=" + ",".join(ids), self.keys["growth"])
        marked = {row.get_attribute("data-dimension"): [
            td.get_attribute("data-area") for td in row.find_elements(By.CSS_SELECTOR, "td[data-winner=yes]")]
            for row in self.all("#comparison-table tr[data-dimension]")}
        wanted = {"overall": [expected["winner"]["overall"]]}
        wanted.update({d: [w] for d, w in expected["winner"]["by_dimension"].items()})
        self.assertEqual(marked, wanted)
        self.shot("explore-compare")

    def test_a_free_key_sees_the_plan_messages(self):
        self.explore_as("free")
        self.assertIn("full map of every area needs the growth plan", self.find("#map-line").text)
        self.open_johannesburg()
        self.wait(lambda: self.all("#history-upsell"), message="history message")
        self.assertIn("needs the growth plan", self.find("#history-upsell").text)
        self.assertEqual(self.all("#history svg"), [])
        # The map shows the marks of the current results only.
        self.assertEqual(int(self.find("#map").get_attribute("data-marks")), len(self.all("#results li")))
        self.shot("explore-free")

    def test_every_control_is_labelled_and_the_map_takes_keys(self):
        self.explore_as("growth")
        self.open_johannesburg()
        self.wait(lambda: self.all("#history svg circle.pt"), message="history drawn")
        self.assertGreater(self.assert_controls_labelled_and_reachable("/explore"), 20)
        canvas = self.find("#map")
        self.wait(lambda: canvas.get_attribute("data-load-ms"), message="the full map drawn")
        before = int(canvas.get_attribute("data-drawn"))
        canvas.send_keys("+++")
        self.wait(lambda: int(canvas.get_attribute("data-drawn")) < before, message="zoomed by keys")

    def test_no_page_logs_an_error_in_the_console(self):
        self.open("/")
        self.open("/docs")
        self.wait(lambda: self.find("#operations").get_attribute("data-operations"))
        self.assertEqual(self.errors_in_console(), [], "/docs")
        self.explore_as("growth")
        self.wait(lambda: self.find("#map").get_attribute("data-load-ms"))
        self.open_johannesburg()
        self.wait(lambda: self.all("#history svg circle.pt"))
        self.assertEqual(self.errors_in_console(), [], "/explore")


class PhoneWidth(Pages):
    """A phone's viewport, emulated: a headless window is never under 500 px."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": 360, "height": 780, "deviceScaleFactor": 2, "mobile": True})

    def assert_fits(self, page):
        inner = self.driver.execute_script("return window.innerWidth")
        self.assertEqual(inner, 360, "the viewport is phone-wide")
        wide = self.driver.execute_script("return document.documentElement.scrollWidth")
        self.assertLessEqual(wide, inner, f"{page} overflows horizontally")

    def test_nothing_overflows_at_360_px(self):
        self.open("/")
        self.assert_fits("/")
        self.open("/docs")
        self.wait(lambda: self.find("#operations").get_attribute("data-operations"))
        self.find("#searchAreas summary").click()
        self.assert_fits("/docs")
        self.shot("docs-360")
        self.explore_as("growth")
        self.open_johannesburg()
        self.wait(lambda: self.all("#history svg circle.pt"))
        self.assert_fits("/explore")
        self.shot("explore-360")


if __name__ == "__main__":
    unittest.main()
