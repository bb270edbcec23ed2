"""Refusals in the pages are sentences a person can act on: a bad key's 401,
a plan's 403 and a spent rate limit's 429 with its Retry-After wait. These
pages log the refused requests in the console, as browsers do; the tests of
test_pages.py check that normal use logs nothing."""

import re
import unittest

from pagetest import Pages, stop_server, use_server


def setUpModule():
    use_server(("free",))


def tearDownModule():
    stop_server()


class Refusals(Pages):
    def message(self):
        return self.find("#message")

    def test_a_bad_key_is_told_as_a_401(self):
        self.open("/explore")
        self.use_key("ask_not_a_key")
        self.wait(lambda: "401" in self.message().text, message="the 401 told")
        self.assertIn("The key was refused (401 invalid_api_key)", self.message().text)
        self.assertIn("error", self.message().get_attribute("class"))
        self.shot("explore-401")

    def test_history_on_a_free_key_is_told_as_a_403(self):
        self.open_docs()
        _, status = self.try_operation("#getAreaHistory", self.keys["free"])
        self.assertEqual(status.get_attribute("data-status"), "403")
        self.assertIn("Your plan does not include this (403 plan_upgrade_required)", status.text)
        self.assertIn("Use a key on the growth plan or above.", status.text)
        self.shot("docs-try-it-403")

    def test_a_spent_rate_limit_is_told_as_a_429_with_its_wait(self):
        key = self.server.key("free")
        for _ in range(200):
            status, headers, _ = self.server.get("/v1/areas?limit=1", key)
            if status == 429:
                break
        self.assertEqual(status, 429, "the free plan's budget is spent")
        self.assertGreaterEqual(int(headers["Retry-After"]), 1)
        self.open("/explore")
        self.use_key(key)
        self.wait(lambda: "429" in self.message().text, message="the 429 told")
        said = re.search(r"wait (\d+) s \(Retry-After\)", self.message().text)
        self.assertIsNotNone(said, self.message().text)
        self.assertTrue(1 <= int(said.group(1)) <= 60, said.group(0))
        self.shot("explore-429")


if __name__ == "__main__":
    unittest.main()
