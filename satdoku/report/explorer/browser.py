"""Headless Chromium for the explorer's browser tests and load-time benchmark.

The browser is Debian's ``chromium`` package, never one a test tool downloads: :func:`chromium`
finds it and, when it is missing and we are root, installs it with apt-get (``apt-get update``
first, like the SLURM test set-up). Playwright drives it through ``executable_path``; as root
Chromium needs ``--no-sandbox``, and a fresh profile directory keeps runs independent.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

PACKAGES = ("chromium",)
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run")


class BrowserMissing(RuntimeError):
    """No Chromium, and no way to install it here (not root, or apt-get failed)."""


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def chromium(install: bool = True, log: Path | None = None) -> str:
    """Path of the Chromium binary, installing Debian's package first when missing (root)."""
    path = find_chromium()
    if path or not install:
        if path:
            return path
        raise BrowserMissing("chromium is not installed (apt-get install chromium)")
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        raise BrowserMissing("chromium is not installed and cannot be installed here: run as "
                             "root on Debian, or `apt-get install chromium` first")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    out = open(log, "a", encoding="utf-8") if log else subprocess.DEVNULL  # noqa: SIM115
    try:
        for attempt in range(3):
            ok = subprocess.run(["apt-get", "update", "-qq"], stdout=out, stderr=out,
                                env=env).returncode == 0
            ok = ok and subprocess.run(
                ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *PACKAGES],
                stdout=out, stderr=out, env=env).returncode == 0
            if ok:
                break
            if attempt == 2:
                raise BrowserMissing(f"apt-get install {' '.join(PACKAGES)} failed"
                                     + (f" (see {log})" if log else ""))
    finally:
        if log:
            out.close()  # type: ignore[union-attr]
    path = find_chromium()
    if not path:
        raise BrowserMissing("apt-get installed chromium, but no chromium binary is on PATH")
    return path


@contextmanager
def browser_page(width: int = 1400, height: int = 1000,
                 install_log: Path | None = None) -> Iterator[Any]:
    """A Playwright page in headless Debian Chromium with a fresh profile (closed on exit);
    Chromium is installed first when missing (apt-get output to ``install_log``)."""
    from playwright.sync_api import sync_playwright

    exe = chromium(log=install_log)
    profile = tempfile.mkdtemp(prefix="satdoku-chromium-")
    try:
        with sync_playwright() as p:
            ctx = p.chromium.launch_persistent_context(
                profile, executable_path=exe, headless=True, args=list(FLAGS[1:]),
                viewport={"width": width, "height": height})
            try:
                yield ctx.pages[0] if ctx.pages else ctx.new_page()
            finally:
                ctx.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def wait_ready(page: Any, hash_: str, timeout_ms: int = 30000) -> None:
    """Wait until the explorer has rendered the view ``hash_`` (main[data-ready])."""
    page.wait_for_function("h => document.getElementById('main').dataset.ready === h", arg=hash_,
                           timeout=timeout_ms)


def open_view(page: Any, index: str | Path, hash_: str = "#/", timeout_ms: int = 30000) -> None:
    """Go to a view of the explorer at ``index`` (index.html) and wait until it is drawn."""
    url = Path(index).resolve().as_uri() + hash_
    if page.url.split("#")[0] == url.split("#")[0]:
        page.evaluate("h => { location.hash = h; }", hash_)
    else:
        page.goto(url)
    wait_ready(page, hash_, timeout_ms)
