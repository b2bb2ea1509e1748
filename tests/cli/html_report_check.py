#!/usr/bin/env python3
"""`iputrain plan --html` in headless Chromium (issue 33): the page is self-contained, renders with
no console message, its script runs, and a screenshot shows the Gantt chart.

Usage: html_report_check.py IPUTRAIN MODEL CONFIG WORK_DIR

Chromium prints every console message of the page (console.log, console.error, an uncaught
exception) as a CONSOLE line with --enable-logging=stderr; the page logs nothing, so any such line
fails. A page with a deliberate error checks that the check sees one. The Gantt is told from the
rest of the page by the colour of its accumulation boxes (#7f6d3a), which no other figure uses:
the page must show it, and the page with the Gantt cut out must not.
"""
import os
import re
import subprocess
import sys

from PIL import Image

ACCUMULATE = (0x7F, 0x6D, 0x3A)


def chromium(args, url):
    cmd = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
           "--hide-scrollbars"] + args + [url]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    console = [line for line in r.stderr.splitlines() if ":CONSOLE" in line]
    return r, console


def screenshot_count(path, png):
    r, console = chromium([f"--screenshot={png}", "--window-size=1400,6000"], "file://" + path)
    if not os.path.exists(png):
        sys.exit(f"FAIL: no screenshot of {path}: {r.stderr[-2000:]}")
    img = Image.open(png).convert("RGB")
    return sum(1 for p in img.getdata() if p == ACCUMULATE), console


def main():
    binary, model, config, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    page = os.path.join(work, "plan.html")
    r = subprocess.run([binary, "plan", model, config, "--html", page], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: plan --html exited with {r.returncode}: {r.stdout}{r.stderr}")
    html = open(page, encoding="utf-8").read()
    # Self-contained: nothing to load (the only URL is the SVG namespace, which is never fetched).
    external = [u for u in re.findall(r"""(?:src|href)\s*=\s*["']([^"'#][^"']*)""", html)]
    if external or "<link" in html or "@import" in html:
        sys.exit(f"FAIL: the page loads something: {external[:5]}")
    for section in ['id="summary"', 'id="memory"', 'id="gantt"', 'id="ops"', 'id="config"', "<svg"]:
        if section not in html:
            sys.exit(f"FAIL: the page has no {section}")

    # The check sees a console error when there is one.
    bad = os.path.join(work, "bad.html")
    with open(bad, "w") as f:
        f.write("<!DOCTYPE html><html><body><script>undefinedFunction();</script></body></html>")
    _, console = chromium(["--dump-dom"], "file://" + bad)
    if not console:
        sys.exit("FAIL: a page with an uncaught error gave no CONSOLE line: the check cannot see errors")

    r, console = chromium(["--dump-dom"], "file://" + page)
    if console:
        sys.exit("FAIL: the page logged to the console:\n" + "\n".join(console))
    if 'data-ready="1"' not in r.stdout:
        sys.exit("FAIL: the page's script did not run to its end (no data-ready on <body>)")

    shown, console = screenshot_count(page, os.path.join(work, "plan.png"))
    if console:
        sys.exit("FAIL: the page logged to the console while rendering:\n" + "\n".join(console))
    cut = os.path.join(work, "no_gantt.html")
    with open(cut, "w", encoding="utf-8") as f:
        f.write(re.sub(r'<h2 id="gantt">.*?</div>\n', "", html, count=1, flags=re.S))
    without, _ = screenshot_count(cut, os.path.join(work, "no_gantt.png"))
    print(f"accumulation-box pixels: {shown} with the Gantt, {without} with it cut out")
    if shown < 50 or without != 0:
        sys.exit("FAIL: the screenshot does not show the Gantt chart")
    print("ok: self-contained, no console message, the script ran, the Gantt is drawn")


if __name__ == "__main__":
    main()
