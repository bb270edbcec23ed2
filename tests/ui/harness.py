"""What the browser tests and the load measurement share: the real release
binary on a free loopback port over a fresh database, keys made with the CLI,
a headless chromium, and plain HTTP calls to check the pages against the API."""

import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.path.join(ROOT, "target", "release", "area-scoring")
SCREENSHOTS = os.path.join(os.path.dirname(__file__), "screenshots")


class Server:
    """area-scoring serve over a database of its own, stopped by stop()."""

    def __init__(self, db=None):
        """Over `db` when given (keys are added to it), else over a fresh seed database."""
        self.dir = tempfile.mkdtemp(prefix="area-ui.")
        self.db = db or os.path.join(self.dir, "areas.db")
        if not db:
            subprocess.run([BIN, "init", "--db", self.db], check=True, capture_output=True)
        self.log = open(os.path.join(self.dir, "server.log"), "w+")
        self.process = subprocess.Popen(
            [BIN, "serve", "--db", self.db, "--addr", "127.0.0.1:0"],
            stdout=self.log, stderr=subprocess.STDOUT)
        self.base = self._address()

    def _address(self):
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            self.log.seek(0)
            found = re.search(r"listening on (http://127\.0\.0\.1:\d+)", self.log.read())
            if found:
                return found.group(1)
            if self.process.poll() is not None:
                raise RuntimeError("the server exited at start")
            time.sleep(0.05)
        raise RuntimeError("the server did not report its address within 10 s")

    def key(self, plan):
        """A new key on `plan`, made by the CLI as an operator would."""
        out = subprocess.run(
            [BIN, "keys", "create", "--db", self.db, "--plan", plan, "--label", "ui-" + plan],
            check=True, capture_output=True, text=True)
        key = out.stdout.strip()
        # The server reads the keys file again shortly after it changes
        # (docs/operations.md, "Keys"): wait until the key is in force.
        deadline = time.monotonic() + 10
        while self.get("/v1/key", key)[0] != 200:
            if time.monotonic() > deadline:
                raise RuntimeError("the new key was not in force within 10 s")
            time.sleep(0.05)
        return key

    def get(self, path, key=None):
        """GET path; returns (status, headers, body as JSON or text)."""
        request = urllib.request.Request(self.base + path)
        if key:
            request.add_header("Authorization", "Bearer " + key)
        try:
            with urllib.request.urlopen(request, timeout=30) as res:
                status, headers, raw = res.status, res.headers, res.read()
        except urllib.error.HTTPError as e:
            status, headers, raw = e.code, e.headers, e.read()
        try:
            return status, headers, json.loads(raw)
        except ValueError:
            return status, headers, raw.decode()

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def browser(width=1280, height=900):
    """Debian's chromium, headless, keeping the console's messages."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                "--disable-gpu", f"--window-size={width},{height}",
                "--no-first-run", "--disable-extensions"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))
    driver.set_script_timeout(30)
    return driver
