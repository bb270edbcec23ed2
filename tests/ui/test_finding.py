"""Finding areas in /explore as the API finds them: pages of the list, the
visible map area (bbox), "within R km of where I click" (here the click
is the keyboard's Enter at the map's centre), and a search within a province. Each compares the page's
results with the API's answer to the request the page says it sent."""

import unittest
from urllib.parse import parse_qs, urlsplit

from selenium.webdriver.support.ui import Select

from pagetest import Pages, stop_server, use_server


def setUpModule():
    use_server(("growth",))


def tearDownModule():
    stop_server()


class Finding(Pages):
    def results_request(self):
        return self.find("#results").get_attribute("data-request") or ""

    def shown_ids(self):
        return self.driver.execute_script(
            "return [...document.querySelectorAll('#results li button[data-id]')]"
            ".map((b) => b.dataset.id);")

    def api_ids(self, request):
        """The ids the API answers to the page's request, asked as JSON."""
        parts = urlsplit(request)
        query = {k: v[0] for k, v in parse_qs(parts.query).items() if k != "format"}
        target = parts.path + "?" + "&".join(f"{k}={v}" for k, v in query.items())
        status, _, body = self.server.get(target, self.keys["growth"])
        self.assertEqual(status, 200, target)
        return [a["id"] for a in body["data"]], body["total"], query

    def wait_for_request(self, needle):
        self.wait(lambda: needle in self.results_request(), message=needle)
        return self.results_request()

    def test_next_shows_the_list_s_second_page(self):
        self.explore_as("growth")
        self.find("#next").click()
        request = self.wait_for_request("offset=10")
        ids, total, _ = self.api_ids(request)
        self.assertEqual(self.shown_ids(), ids)
        self.assertEqual(self.find("#page-info").text, f"11–20 of {total}")
        self.find("#prev").click()
        self.wait_for_request("offset=0")
        self.assertTrue(self.find("#prev").get_attribute("disabled"))

    def test_the_visible_map_area_is_a_bbox_search(self):
        self.explore_as("growth")
        self.wait(lambda: self.find("#map").get_attribute("data-load-ms"), message="full map")
        self.find("#bbox").click()
        request = self.wait_for_request("bbox=")
        ids, everything, _ = self.api_ids(request)
        self.assertEqual(self.shown_ids(), ids)
        _, _, listed = self.server.get("/v1/areas?limit=1", self.keys["growth"])
        self.assertEqual(everything, listed["total"], "the first view holds every area")
        for _ in range(3):
            self.find("#zoom-in").click()
        self.find("#bbox").click()
        self.wait(lambda: self.results_request() != request, message="a narrower bbox")
        ids, fewer, _ = self.api_ids(self.results_request())
        self.assertEqual(self.shown_ids(), ids)
        self.assertLess(fewer, everything)

    def test_enter_on_the_map_searches_within_the_radius(self):
        self.explore_as("growth")
        self.wait(lambda: self.find("#map").get_attribute("data-load-ms"), message="full map")
        self.open_johannesburg()  # the map centres on it
        self.find("#q").clear()
        self.find("#radius-mode").click()
        radius = self.find("#radius")
        radius.clear()
        radius.send_keys("15")
        self.find("#map").send_keys("\ue007")  # Enter
        request = self.wait_for_request("radius=15")
        ids, total, query = self.api_ids(request)
        self.assertEqual(self.shown_ids(), ids)
        self.assertEqual(ids[0], "johannesburg", "nearest first")
        self.assertGreater(total, 1)
        self.assertNotIn("q", query, "the circle alone")
        self.shot("explore-radius")

    def test_a_search_keeps_to_the_chosen_province(self):
        self.explore_as("growth")
        Select(self.find("#province")).select_by_value("gauteng")
        self.wait_for_request("province=gauteng")
        self.find("#q").clear()
        self.find("#q").send_keys("e")
        request = self.wait_for_request("q=e")
        ids, total, query = self.api_ids(request)
        self.assertEqual(query.get("province"), "gauteng", request)
        self.assertEqual(self.shown_ids(), ids)
        _, _, everywhere = self.server.get("/v1/areas/search?q=e&limit=1", self.keys["growth"])
        self.assertGreater(total, 0)
        self.assertLess(total, everywhere["total"], "the province narrows the search")
        provinces = self.driver.execute_script(
            "return [...document.querySelectorAll('#results li button .small')].map((s) => s.textContent);")
        self.assertTrue(provinces and all("Gauteng" in p for p in provinces), provinces)


if __name__ == "__main__":
    unittest.main()
