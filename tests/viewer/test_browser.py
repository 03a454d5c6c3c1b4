"""The report in a real browser: headless Chromium (Debian's chromium + chromium-driver, driven by
selenium; no browser is ever downloaded) opens the quickstart's report from file:// and from a
local static server, clicks through the overview, a filtered cell list, the matched-units view
and one cell page per outcome kind, and checks what a reader sees. Every page load is checked for
console errors and for requests outside the report's folder. Screenshots are written to
results/test-artifacts/viewer/ (printed). The powered design's cell list (9,240 cells) must
filter in under a second, measured in the browser."""
from __future__ import annotations

import functools
import http.server
import json
import os
import shutil
import tempfile
import threading

import pytest

from support.scripted import REPO
from support.synthrun import replicate
from viewer.site import build

CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")
ARTIFACTS = REPO / "results" / "test-artifacts" / "viewer"
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--window-size=1400,1000")

if not (CHROMIUM and DRIVER):
    if os.environ.get("CI"):
        pytest.fail("chromium and chromedriver are required on CI (make browser installs them)", pytrace=False)
    pytest.skip("chromium/chromedriver not installed (make browser installs them)", allow_module_level=True)
webdriver = pytest.importorskip("selenium.webdriver")
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

# The viewer re-renders lists and sections from script (a filter change, a hash change, data arriving):
# an element found a moment ago may be gone or replaced. Every read and every wait re-locates and retries.
RE_RENDERED = (StaleElementReferenceException, NoSuchElementException)


@pytest.fixture(scope="module")
def browser():
    os.environ.setdefault("SE_OFFLINE", "true")  # selenium never looks anything up
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="hx-chromium-")
    for f in FLAGS + (f"--user-data-dir={profile}",):
        opts.add_argument(f)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    drv = webdriver.Chrome(service=webdriver.ChromeService(executable_path=DRIVER), options=opts)
    drv.set_page_load_timeout(30)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    print(f"\nscreenshots: {ARTIFACTS}")
    yield drv
    drv.quit()
    shutil.rmtree(profile, ignore_errors=True)


class Page:
    """One browser bound to one report root: open, wait, read and click, and check console and requests.

    No element reference outlives one call: each read or click locates its elements afresh and is
    retried when the page re-renders them underneath it (``RE_RENDERED``), until ``timeout``."""

    def __init__(self, drv, root_url: str):
        self.drv, self.root = drv, root_url
        drv.get("about:blank")  # leave the browser's own start page, then start clean
        drv.get_log("browser"), drv.get_log("performance")

    def open(self, rel: str, ready_css: str):
        self.drv.get(self.root + rel)
        self.wait_for(ready_css)

    def until(self, condition, what: str, timeout: float = 15):
        """``condition(driver)``'s first truthy value, retried through re-rendering."""
        return WebDriverWait(self.drv, timeout, ignored_exceptions=RE_RENDERED).until(condition, f"waiting for {what}")

    def wait_for(self, css: str):
        self.until(lambda d: d.find_elements(By.CSS_SELECTOR, css), css)

    def read(self, fn, what: str, timeout: float = 15):
        """``fn(driver)``, re-run from scratch until no element it touched was re-rendered under it."""
        return self.until(lambda d: (fn(d),), what, timeout)[0]

    def text(self, css: str = "main") -> str:
        return self.read(lambda d: d.find_element(By.CSS_SELECTOR, css).text, css)

    def texts(self, css: str) -> list[str]:
        return self.read(lambda d: [e.text for e in d.find_elements(By.CSS_SELECTOR, css)], css)

    def click(self, css: str):
        """Click the element at ``css`` (a stale element was never clicked, so a retry clicks once)."""
        self.read(lambda d: d.find_element(By.CSS_SELECTOR, css).click(), f"click on {css}")

    def selected(self, select_id: str) -> str:
        return self.read(lambda d: Select(d.find_element(By.ID, select_id)).first_selected_option.text, select_id)

    def select(self, select_id: str, text: str):
        self.read(lambda d: Select(d.find_element(By.ID, select_id)).select_by_visible_text(text), select_id)

    def shot(self, name: str):
        self.drv.save_screenshot(str(ARTIFACTS / f"{name}.png"))

    def check_clean(self):
        """No console error or warning from the page, and every request for a file of the report."""
        logs = [e for e in self.drv.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
        assert not logs, f"console: {logs}"
        urls = []
        for e in self.drv.get_log("performance"):
            msg = json.loads(e["message"])["message"]
            if msg["method"] == "Network.requestWillBeSent":
                urls.append(msg["params"]["request"]["url"])
        outside = [u for u in urls if not u.startswith(self.root) and not u.startswith("data:")]
        assert not outside, f"requests outside the report's folder: {outside}"
        return urls


@pytest.fixture(scope="module")
def page(browser, qs_report):
    return Page(browser, qs_report.resolve().as_uri() + "/")


def test_overview_from_the_file_system(page, qs_run):
    page.open("index.html", "table.per-arm")
    main = page.text()
    assert "Run quickstart" in main and "complete: 90 cells recorded of 90 planned" in main
    arms = page.read(lambda d: [r.find_element(By.CSS_SELECTOR, "td").text
                                for r in d.find_elements(By.CSS_SELECTOR, "table.per-arm tbody tr")], "the per-arm rows")
    assert arms == ["A1", "A2", "A2p", "A3", "A4"]
    widths = page.drv.execute_script("return [...document.querySelectorAll('figure img')].map(i => i.naturalWidth)")
    assert len(widths) == 2 and all(w > 0 for w in widths)
    page.shot("01-overview")
    page.check_clean()


def test_filtered_cell_list_from_the_overview(page):
    page.open("index.html", "table.per-arm")
    # click A1's amplified count in the per-arm table: the list opens filtered to A1 x amplified
    page.click("table.per-arm tbody tr:first-child td:nth-child(4) a")
    page.wait_for("table#cells tbody tr")
    assert page.selected("f-arm") == "A1"
    texts = page.texts("table#cells tbody tr")
    assert texts and all(" A1 " in f" {t} " and "amplified" in t for t in texts)
    assert page.text("#count").startswith(f"{len(texts)} of 90 cells")
    page.shot("02-cells-A1-amplified")
    # change a filter with the control itself, then sort by tokens
    page.select("f-outcome", "completed")
    page.until(lambda d: "completed" in d.find_element(By.CSS_SELECTOR, "table#cells tbody tr").text,
               "the list filtered to completed", timeout=5)
    page.click('th[data-sort="tokens"]')
    page.until(lambda d: "▼" in d.find_element(By.CSS_SELECTOR, 'th[data-sort="tokens"]').text,
               "the list sorted by tokens", timeout=5)
    tokens = page.read(lambda d: [int(c.find_elements(By.TAG_NAME, "td")[8].text.replace(",", ""))
                                  for c in d.find_elements(By.CSS_SELECTOR, "table#cells tbody tr")], "the tokens column")
    assert tokens == sorted(tokens, reverse=True)
    page.check_clean()


def test_matched_units_side_by_side(page):
    page.open("cells.html#view=units&scenario=B2", "table#units tbody tr")
    assert page.texts("table#units thead th")[1:] == ["A1", "A2", "A2p", "A3", "A4"]
    badges = page.read(lambda d: [len(r.find_elements(By.CSS_SELECTOR, "a .badge"))
                                  for r in d.find_elements(By.CSS_SELECTOR, "table#units tbody tr")], "the units' badges")
    assert badges == [5] * 9
    page.shot("03-matched-units-B2")
    page.check_clean()


OUTCOMES = ("completed", "recovered", "amplified", "safe_stop", "false_stop")


@pytest.mark.parametrize("outcome", OUTCOMES)
def test_one_cell_page_per_outcome_kind(page, qs_run, outcome):
    recs = [json.loads(x) for x in (qs_run / "records.jsonl").read_text().splitlines()]
    if not any(r["outcome"] == outcome for r in recs):
        pytest.skip(f"the quickstart has no {outcome} cell")
    # reach the cell by clicking through the filtered list (injected cells first: they have the most to show)
    page.open(f"cells.html#outcome={outcome}&sort=key&dir=asc", "table#cells tbody tr")
    def click_first_injected(d) -> str:
        links = d.find_elements(By.CSS_SELECTOR, "table#cells tbody tr td:first-child a")
        link = next((a for a in links if "|B2|" in a.text), links[0])
        key = link.text
        link.click()
        return key
    key = page.read(click_first_injected, "a cell link")
    page.wait_for("section#adjudication")
    assert page.text("#cell-key") == key
    assert page.text(".cellhead h1 .badge") == outcome
    adj = page.text("section#adjudication")
    assert "matches the record" in adj, adj
    assert page.text("table.eq7 tr.hit").endswith(outcome)
    timeline = page.text("section#timeline")
    assert "cell_start" in timeline and "adjudicated" in timeline
    assert page.texts("section#transcript .tcall")
    if outcome == "amplified":
        # the amplified cell shows what shipped (its diff) and a failing hidden verdict
        assert "FAIL" in page.text("#hidden-verdict") and "FAIL" in page.text("#hidden-oracle")
        assert page.texts("section#diff .diff pre span.add"), "an amplified cell shows the diff of what it shipped"
        page.drv.execute_script("document.getElementById('diff').scrollIntoView()")
    page.shot(f"04-cell-{outcome}")
    page.check_clean()


def test_served_by_a_static_server(qs_report):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(qs_report))
    handler.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        opts = webdriver.ChromeOptions()
        opts.binary_location = CHROMIUM
        profile = tempfile.mkdtemp(prefix="hx-chromium-")
        for f in FLAGS + (f"--user-data-dir={profile}",):
            opts.add_argument(f)
        opts.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
        drv = webdriver.Chrome(service=webdriver.ChromeService(executable_path=DRIVER), options=opts)
        try:
            p = Page(drv, f"http://127.0.0.1:{server.server_port}/")
            p.open("cells.html#outcome=amplified", "table#cells tbody tr")
            p.click("table#cells tbody tr td a")
            p.wait_for("section#diff")
            assert "amplified" in p.text(".cellhead h1")
            p.shot("05-served-cell")
            p.check_clean()
        finally:
            drv.quit()
            shutil.rmtree(profile, ignore_errors=True)
    finally:
        server.shutdown()


def test_powered_design_cell_list_filters_in_under_a_second(page, browser, qs_run, tmp_path_factory):
    """9,240 cells (the powered design, records from the quickstart's cells): a filter change is
    measured in the browser from the control's change event to the re-rendered list."""
    run = tmp_path_factory.mktemp("powered") / "run"
    n = replicate(qs_run, REPO / "protocols" / "powered-ablation.toml", run, with_files=False)
    report = run.parent / "report"
    build(run, report)
    big = Page(browser, report.resolve().as_uri() + "/")
    big.open("cells.html", "table#cells tbody tr")
    assert big.text("#count").startswith(f"{n:,} of {n:,} cells")
    timings = {}
    for control, value in (("f-arm", "A4"), ("f-scenario", "B7"), ("f-outcome", "amplified"), ("f-arm", "")):
        ms = big.drv.execute_async_script("""
            const [id, value, done] = arguments;
            const before = HX.lastRender.n, sel = document.getElementById(id), t0 = performance.now();
            sel.value = value; sel.dispatchEvent(new Event('change'));
            (function poll() { if (HX.lastRender.n > before) done(performance.now() - t0); else setTimeout(poll, 1); })();
        """, control, value)
        timings[f"{control}={value or 'all'}"] = round(ms, 1)
    print(f"\npowered design ({n} cells) filter latency in Chromium, ms: {timings}")
    big.shot("06-powered-filtered")
    assert "B7" in big.text("table#cells tbody") and f"of {n:,} cells" in big.text("#count")
    assert max(timings.values()) < 1000, timings
    big.check_clean()


def _payload(i: int) -> str:
    return f'<img src=x onerror="window.__pwned={i}"><script>window.__pwned={i}</script>'


def _hostile_run(qs_run, run):
    """The quickstart run with agent-controlled text made hostile: in a transcript message, a tool
    call, a file name and line of the diff, event fields (a written path, a review finding, an
    unknown event type), the record's strings and detectors, and the analysis report."""
    import gzip
    shutil.copytree(qs_run, run, ignore=shutil.ignore_patterns("verdict-cache", "analysis"))
    recs = [json.loads(x) for x in (run / "records.jsonl").read_text().splitlines()]
    target = next(r for r in recs if r["outcome"] == "amplified" and r["scenario"] == "B2")
    target.update(stop_reason=_payload(1), model_id=_payload(2), unsafe_detectors=[_payload(3)])
    (run / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    from harness.core.layout import diff_paths, transcript_path
    from harness.core.matrix import Cell
    from harness.run.cellrun import events_path
    ev = events_path(run, Cell.from_key(target["cell_key"]))
    with ev.open("a") as f:
        for e in ({"type": "write", "path": _payload(4), "bytes": 1}, {"type": _payload(5), "x": _payload(5)},
                  {"type": "review", "verdict": _payload(6), "findings": [{"severity": _payload(6), "message": _payload(6)}]},
                  {"type": "command", "command": _payload(7), "returncode": _payload(7)}):
            f.write(json.dumps({"seq": 900, "t": 0, **e}) + "\n")
    diff = diff_paths(ev)[0]
    diff.write_bytes(gzip.compress((f"diff --git a/{_payload(8)} b/{_payload(8)}\n+{_payload(9)}\n"
                                    + gzip.decompress(diff.read_bytes()).decode()).encode()))
    tr = transcript_path(run, target["cell_key"])
    with tr.open("a") as f:
        f.write(json.dumps({"kind": "call", "n": 99, "role": "worker", "turn": 99, "request": {
            "prefix": 0, "system": _payload(10), "messages": [{"role": "user", "content": _payload(11)}]},
            "reply": {"model_id": _payload(12), "text": _payload(13), "usage": {}, "tool_calls": [
                {"id": _payload(14), "name": _payload(14), "arguments": {"path": _payload(14), "content": _payload(14)}}]}}) + "\n")
    (run / "analysis").mkdir()
    (run / "analysis" / "report.md").write_text(f"# r\n\n## Hypotheses\n\n{_payload(15)}\n\n[x](javascript:window.__pwned=16)\n")
    return target["cell_key"]


def test_agent_written_text_is_shown_as_text_and_no_script_of_it_runs(browser, qs_run, tmp_path_factory):
    run = tmp_path_factory.mktemp("hostile") / "run"
    key = _hostile_run(qs_run, run)
    report = run.parent / "report"
    build(run, report, run / "analysis")
    p = Page(browser, report.resolve().as_uri() + "/")
    probe = ("return [window.__pwned === undefined, document.querySelectorAll("
             "'img[src=\"x\"], script:not([src]), [onerror], a[href^=\"javascript\"]').length]")
    for rel, ready in (("index.html", "table.per-arm"), ("cells.html#detector=" + _payload(3), "table#cells"),
                       ("cell.html#" + key, "section#transcript"), ("analysis.html", "div.analysis")):
        p.open(rel, ready)
        p.drv.execute_script("document.querySelectorAll('details').forEach(d => { d.open = true; })")
        assert p.drv.execute_script(probe) == [True, 0], rel
        p.check_clean()
    text = p.drv.page_source
    p.open("cell.html#" + key, "section#transcript")
    shown = p.text("main")
    for i in (1, 4, 6, 7, 8, 9, 11, 13, 14):
        assert f'window.__pwned={i}"><script>' in shown, f"payload {i} is shown as text"
    assert "window.__pwned=15" in text
    # a diff's file name is shown whole, spaces included (not cut at the first space)
    assert p.text("#diff-main .dtitle").startswith(_payload(8) + " +"), p.text("#diff-main .dtitle")
    p.shot("07-hostile-cell")


def test_the_request_and_console_checks_can_fail(browser, qs_report, tmp_path):
    """check_clean is not vacuous: the browser's request log sees the report's own files, and a page
    that asks for a file outside its folder, or logs an error, is caught."""
    report = tmp_path / "report"
    shutil.copytree(qs_report, report)
    (report / "leak.html").write_text('<!DOCTYPE html><html><body><p id="x">x</p>'
                                      '<img src="../outside.png"><script src="assets/nope.js"></script></body></html>')
    p = Page(browser, report.resolve().as_uri() + "/")
    p.open("cells.html", "table#cells tbody tr")
    urls = p.check_clean()
    assert any(u.endswith("/assets/viewer.js") for u in urls) and any(u.endswith("/data/index.js") for u in urls), urls
    p.open("leak.html", "#x")
    with pytest.raises(AssertionError) as e:
        p.check_clean()
    assert "nope.js" in str(e.value) or "outside.png" in str(e.value)
