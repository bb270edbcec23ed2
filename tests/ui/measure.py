"""How long /explore takes, in Debian's headless chromium, from entering a
growth key to the map showing every area over the land (the key's check, one
export request and web/land.json, parsed and drawn). A measurement to record
in docs/browser.md, not a test:

    area-scoring init --db /tmp/areas-100k.db --synthetic 100000
    tests/ui/.venv/bin/python tests/ui/measure.py /tmp/areas-100k.db [RUNS]
    tests/ui/.venv/bin/python tests/ui/measure.py /tmp/areas-100k.db [RUNS] --without-land
    tests/ui/.venv/bin/python tests/ui/measure.py data/areas.db [RUNS] --boundaries

Each run is a fresh page with the browser's cache off, so the export and the
land are fetched every time. Prints each run and the median, in ms, as the
page itself measured it (performance.now(), shown under the map).

With --without-land, runs with the land and runs with the land's file
blocked (the map then draws the dots alone) alternate in the same browser,
RUNS of each, the order swapped every pair so that neither always goes
first; it prints both medians, their ratio, and the median of the pairs'
differences (less swayed by a busy machine's slow minutes, which both runs
of a pair share).

With --boundaries, each run also waits for the boundaries of the first view
(every page of them, or the one that says there are too many), and prints
the time from entering the key to their being drawn, as the page measured
it (data-boundaries-ms), and the median. It then times the land's own work in the page: fetching
and decoding web/land.json, and filling and stroking it on a canvas of the
map's size (the mean of DRAWS draws)."""

import statistics
import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from harness import Server, browser

LAND_FILE = "*/web/land.json"
DRAWS = 200

LAND_COST = """
const [draws, done] = [arguments[0], arguments[arguments.length - 1]];
import("/web/land.js").then(async ({ Land }) => {
  const started = performance.now();
  const land = new Land(() => {});
  await land.load();
  const loaded = performance.now();
  const canvas = document.getElementById("map");
  const ctx = document.createElement("canvas").getContext("2d");
  ctx.canvas.width = canvas.width; ctx.canvas.height = canvas.height;
  // South Africa's middle at the first view's scale, as the map projects it.
  const k = 40, cos = Math.cos(-29 * Math.PI / 180);
  const projection = { kx: k * cos, cx: canvas.width / 2 - 25 * k * cos, ky: -k, cy: canvas.height / 2 - 29 * k };
  for (let i = 0; i < draws; i++) { land.fill(ctx, projection); land.stroke(ctx, projection); }
  ctx.getImageData(0, 0, 1, 1); // waits for the drawing to be done
  done({ load: loaded - started, draw: (performance.now() - loaded) / draws });
});
"""


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


def boundaries_ms(driver):
    """Once the first view's boundaries are in: ms from the key, how many are drawn, and the page's line."""
    canvas = driver.find_element(By.ID, "map")
    WebDriverWait(driver, 60, poll_frequency=0.05).until(lambda d: canvas.get_attribute("data-boundaries-ms"))
    return (int(canvas.get_attribute("data-boundaries-ms")), canvas.get_attribute("data-boundary-state"),
            driver.find_element(By.ID, "boundary-line").text)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    compare = "--without-land" in sys.argv
    boundaries = "--boundaries" in sys.argv
    db = args[0]
    runs = int(args[1]) if len(args) > 1 else 5
    server = Server(db=db)
    driver = browser()
    try:
        key = server.key("growth")
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
        times = {True: [], False: []}
        filled = []
        for run in range(runs):
            order = [True, False] if run % 2 == 0 else [False, True]
            for land in order if compare else [True]:
                ms, marks = run_once(driver, server, key, land)
                times[land].append(ms)
                label = "with land" if land else "without land"
                print(f"run {run + 1} {label}: {marks} areas on the map in {ms} ms", flush=True)
                if boundaries:
                    b_ms, b_state, line = boundaries_ms(driver)
                    filled.append(b_ms)
                    print(f"run {run + 1}: boundaries {b_state} in {b_ms} ms: {line}", flush=True)
        with_land = statistics.median(times[True])
        print(f"median of {runs} with land: {with_land:.0f} ms")
        if boundaries:
            print(f"median of {runs}, the first view's boundaries: {statistics.median(filled):.0f} ms")
        if compare:
            without = statistics.median(times[False])
            print(f"median of {runs} without land: {without:.0f} ms")
            print(f"with / without: {with_land / without:.3f}")
            pairs = [a - b for a, b in zip(times[True], times[False])]
            print(f"median of the {runs} pairs' differences (with - without): "
                  f"{statistics.median(pairs):+.0f} ms")
            driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
            cost = driver.execute_async_script(LAND_COST, DRAWS)
            print(f"the land alone: fetched and decoded in {cost['load']:.1f} ms, "
                  f"drawn in {cost['draw']:.2f} ms (mean of {DRAWS} draws)")
    finally:
        driver.quit()
        server.stop()


if __name__ == "__main__":
    main()
