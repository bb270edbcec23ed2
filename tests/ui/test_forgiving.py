"""Forgiving search in /explore: the search box asks Search Areas without
match=exact, so a former name or a typo finds the area, and each result found
that way says how (the other name it matched, the words a typo was taken
for), as the API's match says; the area panel lists the other names."""

import unittest

from pagetest import Pages, stop_server, use_server


def setUpModule():
    use_server(("growth",))


def tearDownModule():
    stop_server()


class Forgiving(Pages):
    def search_for(self, text, first):
        """Types `text` and waits until its results, with `first` first, are listed."""
        self.search(text)
        wanted = "q=" + text.replace(" ", "+") + "&"
        self.wait(lambda: wanted in (self.find("#results").get_attribute("data-request") or ""),
                  message=f"results for {text}")
        request = self.find("#results").get_attribute("data-request")
        self.assertNotIn("match=", request, "the page leaves the API's forgiving default")
        self.wait(lambda: self.first_result_is(first), message=f"{first} first for {text}")

    def api_match(self, text, area_id):
        _, _, body = self.server.get("/v1/areas/search?q=" + text.replace(" ", "%20"), self.keys["growth"])
        return next(a["match"] for a in body["data"] if a["id"] == area_id)

    def note(self, area_id):
        """The match note of a result: its tier and text, or None when it has none."""
        found = self.all(f"#results li button[data-id={area_id}] .match-note")
        return (found[0].get_attribute("data-tier"), found[0].text) if found else None

    def test_port_elizabeth_finds_gqeberha_by_its_other_name(self):
        self.explore_as("growth")
        self.search_for("port elizabeth", "gqeberha")
        self.assertEqual(self.api_match("port elizabeth", "gqeberha")["other_name"], "Port Elizabeth")
        self.assertEqual(self.note("gqeberha"), ("other_name", "also known as Port Elizabeth"))
        # The note is part of the result button's name for a screen reader.
        button = self.find("#results li button[data-id=gqeberha]")
        self.assertIn("Gqeberha", button.accessible_name)
        self.assertIn("also known as Port Elizabeth", button.accessible_name)

    def test_johanesburg_lists_johannesburg_first(self):
        self.explore_as("growth")
        self.search_for("johanesburg", "johannesburg")
        match = self.api_match("johanesburg", "johannesburg")
        self.assertNotEqual(match["tier"], "exact", match)
        parts = []
        if match["other_name"]:
            parts.append("also known as " + match["other_name"])
        if match["tier"] in ("one_typo", "two_typos"):
            parts.append("for " + " ".join(match["words"]))
        self.assertEqual(self.note("johannesburg"), (match["tier"], " · ".join(parts)))
        self.shot("explore-typo")
        # An area matched exactly says nothing more than its name.
        self.search_for("johannes", "johannesburg")
        self.assertIsNone(self.note("johannesburg"))

    def test_gqeberha_s_panel_says_also_known_as_port_elizabeth(self):
        self.explore_as("growth")
        self.search_for("port elizabeth", "gqeberha")
        self.find("#results li button[data-id=gqeberha]").click()
        self.wait(lambda: self.find("#panel-title").text == "Gqeberha", message="panel open")
        _, _, area = self.server.get("/v1/areas/gqeberha", self.keys["growth"])
        self.assertIn("Port Elizabeth", area["other_names"])
        names = self.find("#panel-other-names").text
        self.assertEqual(names, "Also known as: " + ", ".join(area["other_names"]))
        self.assertIn("(synthetic)", self.find("#panel").text, "its scores are still said to be synthetic")
        self.wait(lambda: self.all("#history svg circle.pt"), message="history drawn")
        self.shot("explore-other-names")
        # An area without other names has no such line.
        _, _, randburg = self.server.get("/v1/areas/randburg", self.keys["growth"])
        self.assertEqual(randburg["other_names"], [])
        self.search_for("randburg", "randburg")
        self.find("#results li button[data-id=randburg]").click()
        self.wait(lambda: self.find("#panel-title").text == "Randburg", message="panel open")
        self.assertEqual(self.all("#panel-other-names"), [])


if __name__ == "__main__":
    unittest.main()
