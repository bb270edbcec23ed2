"""How long /explore takes, in Debian's headless chromium, from entering a
growth key to the map showing every area over the land (the key's check, one
export request and web/land.json, parsed and drawn). A measurement to record
in the README, not a test:

    area-scoring init --db /tmp/areas-100k.db --synthetic 100000
    tests/ui/.venv/bin/python tests/ui/measure.py /tmp/areas-100k.db [RUNS]
    tests/ui/.venv/bin/python tests/ui/measure.py /tmp/areas-100k.db [RUNS] --without-land

Each run is a fresh page with the browser's cache off, so the export and the
land are fetched every time. Prints each run and the median, in ms, as the
page itself measured it (performance.now(), shown under the map).

With --without-land, runs with the land and runs with the land's file
blocked (the map then draws the dots alone) alternate in the same browser,
RUNS of each, the order swapped every pair so that neither always goes
first; it prints both medians and their ratio."""

import statistics
import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from harness import Server, browser

LAND_FILE = "*/web/land.json"


def run_once(driver, server, key, land):
    """One page load with the land or with its file blocked; the page's ms."""
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": [] if land else [LAND_FILE]})
    # No key kept from the run before: the page starts on the key typed.
    driver.get(server.base + "/healthz")
    driver.execute_script("sessionStorage.clear()")
    driver.get(server.base + "/explore")
    driver.find_element(By.ID, "key").send_keys(key)
    driver.find_element(By.CSS_SELECTOR, "#keyform button[type=submit]").click()
    canvas = driver.find_element(By.ID, "map")
    WebDriverWait(driver, 60, poll_frequency=0.05).until(lambda d: canvas.get_attribute("data-load-ms"))
    drew_land = canvas.get_attribute("data-land") is not None
    if drew_land != land:
        raise RuntimeError(f"asked for land={land}, the map drew land={drew_land}")
    return int(canvas.get_attribute("data-load-ms")), int(canvas.get_attribute("data-marks"))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    compare = "--without-land" in sys.argv
    db = args[0]
    runs = int(args[1]) if len(args) > 1 else 5
    server = Server(db=db)
    driver = browser()
    try:
        key = server.key("growth")
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
        times = {True: [], False: []}
        for run in range(runs):
            order = [True, False] if run % 2 == 0 else [False, True]
            for land in order if compare else [True]:
                ms, marks = run_once(driver, server, key, land)
                times[land].append(ms)
                label = "with land" if land else "without land"
                print(f"run {run + 1} {label}: {marks} areas on the map in {ms} ms", flush=True)
        with_land = statistics.median(times[True])
        print(f"median of {runs} with land: {with_land:.0f} ms")
        if compare:
            without = statistics.median(times[False])
            print(f"median of {runs} without land: {without:.0f} ms")
            print(f"with / without: {with_land / without:.3f}")
    finally:
        driver.quit()
        server.stop()


if __name__ == "__main__":
    main()
