"""The site in a real browser: headless Chromium (Debian's) opens every
page from file:// as a reader would, with no console error, every link
leading to a file and every image drawn; the catalog sorts when a header is
clicked and filters as one types, and fits a 1280×800 window without
scrolling sideways; a version's lookup tells a kept job from a dropped one
and from a number the log never had. Screenshots of the index and of a log
page are kept as test artifacts ($WLA_TEST_ARTIFACTS, else test-artifacts/
in the project)."""
from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from cli_run import wla
from real_logs import ROOT, data_dir, pandas_log
from site_example import CLEANED, DRAFT, PUBLISHED, example
from wla.archive import open as open_archive

CHROMIUM, DRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
selenium = pytest.importorskip("selenium", reason="selenium is not installed (pip install -e '.[test]')")
if not (shutil.which(CHROMIUM) and shutil.which(DRIVER)):
    pytest.skip(f"no headless browser: {CHROMIUM} and {DRIVER} are needed (Debian: apt-get install chromium "
                "chromium-driver)", allow_module_level=True)

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402


def artifacts() -> Path:
    folder = Path(os.environ.get("WLA_TEST_ARTIFACTS") or ROOT / "test-artifacts")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,800"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    return example(tmp_path_factory)


# Whole real logs of machines from 100 to 163,840 processors and 10 to 43,778 jobs, one without a machine size.
SEVERAL = ["ANL-Intrepid-2009-1-head10", "KTH-SP2-1996-2.1-cln", "LLNL-Atlas-2006-2.1-cln", "NASA-iPSC-1993-3.1-cln",
           "SDSC-Par-1996-3.1-cln", "lublin_256"]


@pytest.fixture(scope="module")
def several(tmp_path_factory) -> Path:
    """The site of an archive of several whole real logs."""
    from wla.archive.store.ingest import ingest
    from wla.cli.site.build import build_site

    folder = tmp_path_factory.mktemp("several")
    with open_archive(folder / "a.duckdb", write=True) as a:
        assert all(r.status == "ingested" for r in ingest(a, [data_dir() / f"{n}.swf.gz" for n in SEVERAL]))
        build_site(a, folder / "site")
    return folder / "site"


def open_page(browser, path: Path) -> list[dict]:
    """Load a page; the console entries it made."""
    browser.get_log("browser")  # what earlier pages left
    browser.get(path.resolve().as_uri())
    browser.execute_script("return document.readyState")  # the page's scripts have run
    return browser.get_log("browser")


def check_page(browser, site: Path, page: Path) -> None:
    severe = [e for e in open_page(browser, page) if e["level"] == "SEVERE"]
    assert severe == [], (page, severe)
    images = browser.execute_script(
        "return Array.from(document.images).map(i => [i.getAttribute('src'), i.complete, i.naturalWidth])")
    assert all(complete and width > 0 for _, complete, width in images), (page, images)
    ids = set(browser.execute_script("return Array.from(document.querySelectorAll('[id]')).map(e => e.id)"))
    for link in browser.execute_script(
            "return Array.from(document.querySelectorAll('a[href], link[href], script[src]'))"
            ".map(e => e.href || e.src)"):
        parts = urlsplit(link)
        assert parts.scheme == "file", (page, link)
        target = Path(unquote(parts.path))
        assert target.is_file() and site.resolve() in target.resolve().parents, (page, link)
        if parts.fragment and target.resolve() == page.resolve():
            assert parts.fragment in ids, (page, link)


def test_every_page_loads_cleanly_with_its_links_and_images(browser, made):
    pages = sorted(made.site.rglob("*.html"))
    assert len(pages) == made.result.pages
    for page in pages:
        check_page(browser, made.site, page)
    open_page(browser, made.site / "index.html")
    browser.save_screenshot(str(artifacts() / "site-index.png"))
    open_page(browser, made.site / "logs" / f"{CLEANED}.html")
    browser.save_screenshot(str(artifacts() / "site-log.png"))


def shown_names(browser) -> list[str]:
    return browser.execute_script("return Array.from(document.querySelectorAll('#catalog tbody tr'))"
                                  ".filter(r => !r.hidden).map(r => r.dataset.name)")


def test_clicking_a_header_sorts_the_catalog(browser, made):
    listed = json.loads(wla("ls", "--json", archive=made.archive).out)
    open_page(browser, made.site / "index.html")
    for column in ("jobs", "first_submit_date", "utilization"):
        header = browser.find_element(By.CSS_SELECTOR, f'#catalog th[data-column="{column}"]')
        known = [r for r in listed if r[column] is not None]
        unknown = [r["name"] for r in listed if r[column] is None]
        header.click()
        ascending = [r["name"] for r in sorted(known, key=lambda r: r[column])]
        assert shown_names(browser) == ascending + unknown, column
        header.click()
        descending = [r["name"] for r in sorted(known, key=lambda r: r[column], reverse=True)]
        assert shown_names(browser) == descending + unknown, column
        assert header.get_attribute("aria-sort") == "descending"


def test_the_filter_box_keeps_the_rows_that_match(browser, made):
    open_page(browser, made.site / "index.html")
    box = browser.find_element(By.ID, "filter")
    box.send_keys("head228")
    assert shown_names(browser) == ["NASA-iPSC-1993-3-head228"]
    assert browser.find_element(By.ID, "catalog-shown").text.startswith("1 of ")
    box.clear()
    box.send_keys("@")
    assert shown_names(browser) == [f"{CLEANED}@{DRAFT}", f"{CLEANED}@{PUBLISHED}"]  # as `wla ls` orders them


@pytest.mark.parametrize("site", [pytest.param("several", marks=pytest.mark.slow), "made"])
def test_the_index_fits_a_1280_by_800_window(browser, site, request):
    """Every column of the index in view, nothing to scroll sideways: not the
    page, not the catalog's own scrolling box."""
    root = request.getfixturevalue(site)
    root = root if isinstance(root, Path) else root.site
    open_page(browser, root / "index.html")
    names = browser.execute_script("return Array.from(document.querySelectorAll('#catalog tbody tr'))"
                                   ".map(r => r.dataset.name)")
    assert site != "several" or names == SEVERAL
    assert browser.execute_script("return [window.outerWidth, window.outerHeight]") == [1280, 800]
    page = browser.execute_script("return [document.documentElement.scrollWidth, "
                                  "document.documentElement.clientWidth]")
    box = browser.execute_script("var b = document.getElementById('catalog').parentElement; "
                                 "return [b.scrollWidth, b.clientWidth]")
    browser.save_screenshot(str(artifacts() / f"site-index-{site}-1280x800.png"))
    assert page[0] <= page[1] and box[0] <= box[1], (page, box)
    rights = browser.execute_script("return Array.from(document.querySelectorAll('#catalog th'))"
                                    ".map(h => [h.dataset.column, h.getBoundingClientRect().right])")
    assert [c for c, _ in rights] == ["name", "kind", "first_submit_date", "last_submit_date", "months",
                                      "machine_size", "users", "jobs", "utilization"]
    assert all(right <= page[1] for _, right in rights), rights


@pytest.mark.parametrize("log", [CLEANED, pytest.param("LLNL-Atlas-2006-2.1-cln", marks=pytest.mark.slow)])
def test_the_flurry_table_fits_the_window(browser, made, log, request):
    site = made.site if log == CLEANED else request.getfixturevalue("several")  # the whole logs' site only for them
    open_page(browser, site / "logs" / f"{log}.html")
    box = browser.execute_script("var b = document.getElementById('flurry-table').parentElement; "
                                 "return [b.scrollWidth, b.clientWidth]")
    assert box[0] <= box[1], box
    heights = browser.execute_script("return Array.from(document.querySelectorAll('#flurry-table tbody tr'))"
                                     ".map(r => r.getBoundingClientRect().height)")
    line = browser.execute_script("return document.querySelector('#flurry-table thead tr')"
                                  ".getBoundingClientRect().height")
    assert len(heights) > 5 and max(heights) <= line * 1.2, (heights, line)  # one line a row


def answer_to(browser, lookup, number: int) -> str:
    lookup.clear()
    lookup.send_keys(str(number))
    return browser.find_element(By.ID, "lookup-answer").text


def test_the_lookup_tells_kept_from_dropped_from_no_such_job(browser, made):
    jobs = pandas_log(CLEANED)
    gone = int(jobs[jobs.user == made.busiest_user].job.iloc[0])
    kept = int(jobs[jobs.user != made.busiest_user].job.iloc[-1])
    numbers = set(jobs.job)
    missing = [n for n in range(1, max(numbers) + 2) if n not in numbers]
    assert missing[0] < max(numbers) < missing[-1]  # a gap between jobs, and past the last
    page = made.site / "versions" / f"{CLEANED}@{PUBLISHED}.html"
    open_page(browser, page)
    status = browser.find_element(By.ID, "decisions-status")
    assert status.text.startswith("decisions 1 to 50 of ")
    browser.find_element(By.ID, "decisions-next").click()
    assert status.text.startswith("decisions 51 to ")
    lookup = browser.find_element(By.ID, "job-lookup")
    assert answer_to(browser, lookup, gone) == \
        f"Dropped: job {gone} is not in this version, dropped by step 2 (filter): the busiest user."
    rows = browser.find_elements(By.CSS_SELECTOR, "#decisions-table tbody tr")
    assert [r.find_elements(By.TAG_NAME, "td")[4].text for r in rows] == [str(gone)]
    assert answer_to(browser, lookup, kept) == f"Kept: job {kept} is in this version, as {CLEANED} wrote it."
    for number in (missing[0], missing[-1]):
        assert answer_to(browser, lookup, number) == f"No such job: {CLEANED} has no job {number}."


def test_the_lookup_names_the_change_and_the_earlier_version(browser, made):
    """The draft was built from the published version: a job that version
    dropped is named with it, a job the draft's step changed with the change."""
    with open_archive(made.archive) as a:
        [(job, old, new, reason)] = a.rows(
            "SELECT job, old_value, new_value, reason FROM decisions d JOIN logs l ON l.log_id = d.version_id "
            "WHERE l.name = ? AND field = 'run' ORDER BY job LIMIT 1", [f"{CLEANED}@{DRAFT}"])
    jobs = pandas_log(CLEANED)
    assert int(jobs[jobs.job == job].run.iloc[0]) == int(old)  # the value as the file wrote it
    gone = int(jobs[jobs.user == made.busiest_user].job.iloc[-1])
    open_page(browser, made.site / "versions" / f"{CLEANED}@{DRAFT}.html")
    lookup = browser.find_element(By.ID, "job-lookup")
    assert old == -1  # unknown in SWF
    assert answer_to(browser, lookup, job) == (f"Kept: job {job} is in this version, changed: run from -1 (unknown) "
                                               f"to {new:,.0f} s by step 1 (recover): {reason}.")
    assert answer_to(browser, lookup, gone) == (f"Dropped: job {gone} is not in this version, dropped by step 2 "
                                                f"(filter) of {CLEANED}@{PUBLISHED}: the busiest user.")


@pytest.mark.slow
def test_a_site_of_every_real_log(browser, real_archive, tmp_path):
    """Every real log: built in reasonable time, every page clean in the browser."""
    from wla.cli.site.build import build_site

    started = time.monotonic()
    result = build_site(real_archive, tmp_path / "site")
    took = time.monotonic() - started
    assert result.logs == len(list(real_archive.rows("SELECT name FROM logs")))
    assert took < 600, took
    for page in sorted((tmp_path / "site").rglob("*.html")):
        check_page(browser, tmp_path / "site", page)
    open_page(browser, tmp_path / "site" / "index.html")
    assert browser.execute_script("return document.documentElement.scrollWidth "
                                  "<= document.documentElement.clientWidth")
    browser.save_screenshot(str(artifacts() / "site-all-index.png"))
    open_page(browser, tmp_path / "site" / "logs" / "SDSC-SP2-1998-4.2-cln.html")
    browser.save_screenshot(str(artifacts() / "site-all-log.png"))
