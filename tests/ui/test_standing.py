"""An area's standing in /explore: the panel says, in words, its truth_score's
percentile and position in its province and nationally (Get Area's
include=rank), and draws its province's distribution of truth_score (Area
statistics) with the area marked, both with the API's numbers, on the free
plan, and says the scores are synthetic."""

import unittest

from pagetest import Pages, stop_server, use_server


def setUpModule():
    use_server(("free",))


def tearDownModule():
    stop_server()


def ordinal(n):
    """1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, ... written out here, not taken from the page."""
    if 11 <= n % 100 <= 13:
        return f"{n}th"
    return f"{n}" + {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def percentile_words(p):
    """The nearest whole percentile, within 1 to 99."""
    whole = int(p + 0.5)  # half up, as the page's Math.round for these positive numbers
    return ordinal(min(99, max(1, whole))) + " percentile"


def number(v):
    """A JSON number as JavaScript's String() writes it: 6.0 is 6."""
    return str(int(v)) if float(v).is_integer() else repr(v)


class Standing(Pages):
    def open_area(self, name, area_id):
        self.search(name.lower())
        self.wait(lambda: self.first_result_is(area_id), message=f"{area_id} first")
        self.find(f"#results li button[data-id={area_id}]").click()
        self.wait(lambda: self.find("#panel-title").text == name, message="panel open")
        self.wait(lambda: self.all("#panel-distribution svg .mark"), message="distribution drawn")

    def api(self, path):
        status, _, body = self.server.get(path, self.keys["free"])
        self.assertEqual(status, 200, body)
        return body

    def assert_standing_and_distribution(self, area_id):
        area = self.api(f"/v1/areas/{area_id}?include=rank")
        rank = area["rank"]["truth_score"]
        province, national = rank["province"], rank["national"]
        self.assertEqual(
            self.find("#panel-standing").text,
            f"truth_score {number(area['truth_score'])}: "
            f"{percentile_words(province['percentile'])} in {area['province']} "
            f"({ordinal(province['position'])} of {province['of']}), "
            f"{percentile_words(national['percentile'])} nationally "
            f"({ordinal(national['position'])} of {national['of']}).")

        stats = self.api(f"/v1/areas/stats?group_by=province&province={area['province_slug']}")
        s = next(g for g in stats["data"] if g["group"] == area["province_slug"])["measures"]["truth_score"]
        self.assertEqual(s["count"], province["of"], "the distribution is of the areas the standing counts")
        figure = self.find("#panel-distribution")
        self.assertEqual(figure.get_attribute("data-province"), area["province_slug"])
        drawn = {
            "min": ".range", "max": ".range", "p10": ".band", "p90": ".band",
            "p25": ".box", "p75": ".box", "p50": ".median",
        }
        for measure, part in drawn.items():
            value = figure.find_element("css selector", f"svg {part}").get_attribute(f"data-{measure}")
            self.assertEqual(value, number(s[measure]), measure)
        mark = figure.find_element("css selector", "svg .mark")
        self.assertEqual(mark.get_attribute("data-score"), number(area["truth_score"]))
        # The marker stands where the score is on the 0 to 10 axis (10 to 310 in the chart's units).
        x = float(mark.get_attribute("d").split(",")[0][1:])
        self.assertAlmostEqual(x, 10 + area["truth_score"] / 10 * 300, delta=0.1)
        box = figure.find_element("css selector", "svg .box")
        left, width = float(box.get_attribute("x")), float(box.get_attribute("width"))
        self.assertAlmostEqual(left, 10 + s["p25"] / 10 * 300, delta=0.01)
        self.assertAlmostEqual(left + width, 10 + s["p75"] / 10 * 300, delta=0.01)
        # The same numbers in words, for a reader who cannot see the chart.
        self.assertTrue(self.find("#panel-distribution-text").text.startswith(
            f"{area['province']}'s {s['count']} areas: lowest {number(s['min'])}, "
            f"10th percentile {number(s['p10'])}, 25th {number(s['p25'])}, median {number(s['p50'])}, "
            f"75th {number(s['p75'])}, 90th {number(s['p90'])}, highest {number(s['max'])}; "
            f"mean {number(s['mean'])}. The marker is {area['name']}, {number(area['truth_score'])}."))
        label = figure.find_element("css selector", "svg").get_attribute("aria-label")
        self.assertIn(area["province"], label)
        self.assertIn(number(area["truth_score"]), label)
        self.assertIn("synthetic", self.find("#panel").text)

    def test_the_panel_shows_the_areas_standing_and_its_provinces_distribution(self):
        self.explore_as("free")
        self.open_area("Johannesburg", "johannesburg")
        self.assert_standing_and_distribution("johannesburg")
        self.shot("explore-standing")
        # Another province's area gets its own province's figures.
        self.open_area("Stellenbosch", "stellenbosch")
        self.assertEqual(self.find("#panel-distribution").get_attribute("data-province"), "western-cape")
        self.assert_standing_and_distribution("stellenbosch")
        self.assertEqual(self.errors_in_console(), [])

    def test_ordinals_take_the_suffix_english_does(self):
        self.open("/explore")
        cases = [1, 2, 3, 4, 10, 11, 12, 13, 14, 21, 22, 23, 24, 82, 99, 101, 102, 111, 112, 113, 121]
        got = self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "import('/web/panel.js').then((m) => done(arguments[0].map(m.ordinal)));", cases)
        self.assertEqual(got, [ordinal(n) for n in cases])
        self.assertEqual(got[:13], ["1st", "2nd", "3rd", "4th", "10th", "11th", "12th", "13th", "14th",
                                    "21st", "22nd", "23rd", "24th"])
        words = self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "import('/web/panel.js').then((m) => done([0.1, 81.6, 82.4, 99.9].map(m.percentileWords)));")
        self.assertEqual(words, ["1st percentile", "82nd percentile", "82nd percentile", "99th percentile"])


if __name__ == "__main__":
    unittest.main()
