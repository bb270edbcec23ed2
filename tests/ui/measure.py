"""How long /explore takes, in Debian's headless chromium, from entering a
growth key to the map showing every area (one export request, parsed and
drawn). A measurement to record in the README, not a test:

    area-scoring init --db /tmp/areas-100k.db --synthetic 100000
    tests/ui/.venv/bin/python tests/ui/measure.py /tmp/areas-100k.db [RUNS]

Each run is a fresh page with the browser's cache off, so the export is
fetched every time. Prints each run and the median, in ms, as the page
itself measured it (performance.now(), shown under the map)."""

import statistics
import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from harness import Server, browser


def main():
    db = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    server = Server(db=db)
    driver = browser()
    try:
        key = server.key("growth")
        driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
        times = []
        for run in range(runs):
            # No key kept from the run before: the page starts on the key typed.
            driver.get(server.base + "/healthz")
            driver.execute_script("sessionStorage.clear()")
            driver.get(server.base + "/explore")
            field = driver.find_element(By.ID, "key")
            field.send_keys(key)
            driver.find_element(By.CSS_SELECTOR, "#keyform button[type=submit]").click()
            canvas = driver.find_element(By.ID, "map")
            WebDriverWait(driver, 60, poll_frequency=0.05).until(
                lambda d: canvas.get_attribute("data-load-ms"))
            ms = int(canvas.get_attribute("data-load-ms"))
            marks = int(canvas.get_attribute("data-marks"))
            times.append(ms)
            print(f"run {run + 1}: {marks} areas on the map in {ms} ms")
        print(f"median of {runs}: {statistics.median(times):.0f} ms")
    finally:
        driver.quit()
        server.stop()


if __name__ == "__main__":
    main()
