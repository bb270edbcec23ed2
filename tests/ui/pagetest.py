"""The browser tests' base class: a headless chromium per test class over
the server a test module starts (use_server), and the steps the tests share:
opening a page, entering a key, waiting for what the page draws, screenshots."""

import os
import unittest

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from harness import SCREENSHOTS, Server, browser


def use_server(plans):
    """Starts a server with a key per plan for every Pages test of a module."""
    Pages.server = Server()
    Pages.keys = {plan: Pages.server.key(plan) for plan in plans}


def stop_server():
    Pages.server.stop()


class Pages(unittest.TestCase):
    """A browser per test class, over the module's server (see use_server)."""

    width = 1280
    server = None
    keys = {}

    @classmethod
    def setUpClass(cls):
        cls.driver = browser(width=cls.width)

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()

    def setUp(self):
        # Every test starts in a clean tab: no key kept, no console messages.
        self.driver.get(self.server.base + "/healthz")
        self.driver.execute_script("sessionStorage.clear()")
        self.driver.get_log("browser")

    # helpers

    def open(self, path):
        self.driver.get(self.server.base + path)

    def find(self, css):
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def all(self, css):
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def wait(self, condition, timeout=15, message=""):
        # Lists are redrawn as answers arrive: an element read mid-redraw is
        # stale, and the condition is simply asked again.
        return WebDriverWait(self.driver, timeout, poll_frequency=0.05,
                             ignored_exceptions=[StaleElementReferenceException]).until(
            lambda d: condition(), message)

    def use_key(self, key):
        field = self.find("#key")
        field.clear()
        field.send_keys(key)
        self.find("#keyform button[type=submit]").click()

    def open_docs(self):
        self.open("/docs")
        self.wait(lambda: self.find("#operations").get_attribute("data-operations"), message="operations drawn")

    def try_operation(self, section_id, key):
        """Sends an operation's try-it form of /docs with `key`; its form and status, once answered."""
        self.use_key(key)
        section = self.find(section_id)
        section.find_element(By.TAG_NAME, "summary").click()
        form = section.find_element(By.CSS_SELECTOR, "form[data-try]")
        form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        status = form.find_element(By.CSS_SELECTOR, "[data-status]")
        self.wait(lambda: status.get_attribute("data-status"), message="try-it answered")
        return form, status

    def shot(self, name):
        os.makedirs(SCREENSHOTS, exist_ok=True)
        self.driver.save_screenshot(os.path.join(SCREENSHOTS, name + ".png"))

    def errors_in_console(self):
        return [e for e in self.driver.get_log("browser") if e["level"] == "SEVERE"]

    def assert_controls_labelled_and_reachable(self, page):
        """Every visible control has an accessible name and is in the tab order."""
        checked = 0
        for control in self.all("input, select, button, a, summary, canvas"):
            if not control.is_displayed():
                continue
            html = control.get_attribute("outerHTML")[:160]
            self.assertTrue(control.accessible_name.strip(), f"{page}: no label: {html}")
            self.assertNotEqual(control.get_attribute("tabindex"), "-1", f"{page}: {html}")
            checked += 1
        return checked

    def explore_as(self, plan):
        self.open("/explore")
        self.use_key(self.keys[plan])
        self.wait(lambda: self.all("#results li"), message="results listed")

    def search(self, text):
        box = self.find("#q")
        box.clear()
        box.send_keys(text)

    def first_result_is(self, area_id):
        return self.driver.execute_script(
            "const b = document.querySelector('#results li button[data-id]');"
            "return b !== null && b.dataset.id === arguments[0];", area_id)

    def open_johannesburg(self):
        self.search("johannes")
        self.wait(lambda: self.first_result_is("johannesburg"), message="johannesburg first")
        self.find("#results li button[data-id=johannesburg]").click()
        self.wait(lambda: self.find("#panel-title").text == "Johannesburg", message="panel open")
