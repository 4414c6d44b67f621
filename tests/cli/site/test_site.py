"""`wla site`: the catalog as static pages, checked without a browser: every
link resolves, nothing comes from the network, the same archive gives the
same bytes, and each page shows what the archive holds (the catalog as `wla
ls --json` gives it, header lines as the file writes them, quality counts
as pandas counts them, the steps and decisions of a version)."""
from __future__ import annotations

import gzip
import hashlib
import html
import json
import re
import shutil
import tomllib
from html.parser import HTMLParser
from pathlib import Path

import pytest
from cli_run import wla
from real_logs import ROOT, data_dir, pandas_log
from site_example import CLEANED, DRAFT, EMPTY, NOTE, ODD, ODD_SOURCE, PUBLISHED, SMALL, build, example
from wla.archive import open as open_archive
from wla.archive.store.listing import LS_COLUMNS
from wla.cli.site.links import check_links
from wla.cli.site.paths import stems


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    return example(tmp_path_factory)


class Tags(HTMLParser):
    """Every start tag with its attributes, in order."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def tags(path: Path) -> list[tuple[str, dict]]:
    parser = Tags()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser.tags


def digest(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def page_of(made, name: str) -> Path:
    """A log's page as the index links it."""
    row = None
    for tag, attrs in tags(made.site / "index.html"):
        if tag == "tr":
            row = attrs.get("data-name")
        elif tag == "a" and row == name:
            return made.site / attrs["href"]
    raise AssertionError(f"no row for {name}")


def test_every_link_resolves_and_the_counts_add_up(made):
    assert check_links(made.site) == []
    result = made.result
    pngs = list((made.site / "figures").glob("*.png"))
    assert result.figures == len(pngs) > 0
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)
    assert result.logs == len(SMALL) + 1 and result.versions == 3 and result.published == 1
    assert result.pages == result.logs + result.versions + 1 == len(list(made.site.rglob("*.html")))
    assert result.bytes == sum(p.stat().st_size for p in made.site.rglob("*") if p.is_file() and p.name != ".wla-site")


def test_a_broken_link_is_found(made, tmp_path):
    site = tmp_path / "site"
    shutil.copytree(made.site, site)
    index = site / "index.html"
    index.write_text(index.read_text(encoding="utf-8").replace(
        "</main>", '<a href="logs/nothing.html">x</a><img src="https://example.org/x.png" alt="">'
                   '<a href="#nowhere">y</a><a href="../outside.html">z</a></main>'), encoding="utf-8")
    figure = sorted((site / "figures").glob("*.png"))[0]
    figure.unlink()
    found = {(b.page, b.target) for b in check_links(site)}
    assert {("index.html", "logs/nothing.html"), ("index.html", "https://example.org/x.png"),
            ("index.html", "#nowhere"), ("index.html", "../outside.html")} <= found
    assert any(target.endswith(figure.name) for _, target in found)
    assert len(found) == 5


@pytest.mark.slow
def test_the_command_writes_the_same_bytes_again_and_only_what_it_names(made, tmp_path):
    """`wla site` on the same archive writes what build_site wrote, byte for
    byte, and says what; a build of one log into that folder leaves that
    log's files as they were and removes the rest."""
    again = tmp_path / "again"
    run = wla("site", "-o", again, archive=made.archive)
    assert run.status == 0, run.err
    assert digest(again) == digest(made.site)
    files = [f for f in again.rglob("*") if f.is_file() and f.name != ".wla-site"]
    assert run.out == (f"wrote {again}: {len(SMALL) + 5} pages ({len(SMALL) + 1} logs, 3 versions), "
                       f"{len(list(again.glob('figures/*.png')))} figures, 1 published version; "
                       f"{len(files)} files, {sum(f.stat().st_size for f in files):,} bytes\n")
    one = "NASA-iPSC-1993-3-head228"
    build(made.archive, again, [one])
    kept = digest(again)
    # NASA's head has no requested processors or time and no wait: those figures are not drawn
    figures = [f"figures/{one}-{k}.png" for k in ("cycles", "distributions", "flurries", "size_run", "utilization")]
    assert sorted(p for p in kept if p.startswith(("logs/", "versions/", "figures/", "data/", "files/"))) == \
        figures + [f"logs/{one}.html"]
    assert {p: h for p, h in kept.items() if p not in ("index.html", ".wla-site")} == \
        {p: h for p, h in digest(made.site).items() if p in kept and p not in ("index.html", ".wla-site")}
    assert (again / ".wla-site").read_text().splitlines()[1:] == sorted(p for p in kept if p != ".wla-site")


def test_the_index_is_the_catalog_of_wla_ls(made):
    """The index shows the columns a reader compares logs by; each row holds
    the whole record of `wla ls --json`, and each cell its column's value."""
    listed = json.loads(wla("ls", "--json", archive=made.archive).out)
    found = tags(made.site / "index.html")
    heads = [a["data-column"] for t, a in found if t == "th" and "data-column" in a]
    moved = ["original", "version", "converted_from"]
    assert heads == [c for c in LS_COLUMNS if c not in moved]
    rows, cells = [], []
    for tag, attrs in found:
        if tag == "tr" and "data-name" in attrs:
            cells = []
            rows.append((attrs["data-name"], json.loads(attrs["data-record"]), cells))
        elif tag == "td" and "data-value" in attrs:
            cells.append((attrs["data-column"], json.loads(attrs["data-value"])))
    assert [name for name, _, _ in rows] == [r["name"] for r in listed]
    for (name, record, got), want in zip(rows, listed):
        assert record == want, name
        assert dict(got) == {c: want[c] for c in heads}, name
    assert len(rows) == len(SMALL) + 1 + 2
    version = page_of(made, f"{CLEANED}@{PUBLISHED}").read_text(encoding="utf-8")
    assert f"<p class=\"lead\">version {PUBLISHED} of <a href=\"../logs/{CLEANED}.html\">{CLEANED}</a>:" in version


def test_a_log_page_shows_its_header_as_written_and_its_quality(made):
    name = "HPC2N-2002-2.2-head3170"
    page = page_of(made, name).read_text(encoding="utf-8")
    with gzip.open(data_dir() / f"{name}.swf.gz", "rt") as fh:
        header = [line.rstrip("\n") for line in fh if line.lstrip().startswith(";")]
    shown = html.unescape(re.search(r'<pre class="header">(.*?)</pre>', page, re.S).group(1)).splitlines()
    assert shown == header and len(header) > 10
    jobs = pandas_log(name)
    counts = {"jobs": len(jobs), "missing_run": int((jobs.run == -1).sum()),
              "missing_start": int(((jobs.status == 1) & (jobs.wait == -1)).sum()),
              "zero_run": int(((jobs.status == 1) & (jobs.run == 0)).sum()),
              "run_over_requested": int(((jobs.run >= 0) & (jobs.req_time > 0)
                                         & (jobs.run > jobs.req_time + 60)).sum())}
    for column, count in counts.items():
        label = column.replace("_", " ")
        assert re.search(rf'<th scope="row">{label}</th><td class="num">{count:,}</td>', page), (column, count)
    assert "Header audit" in page and 'id="audit-table"' in page
    assert all(f'figures/{name}-{kind}.png' in page for kind in ("cycles", "distributions", "utilization",
                                                                  "flurries"))


def test_a_log_page_shows_the_diagnosis_of_wla_quality(made):
    from wla.archive.analysis.diagnosis.diagnose import diagnose

    for name in SMALL:
        page = page_of(made, name).read_text(encoding="utf-8")
        section = page[page.index('<h2 id="diagnosis">'):page.index('<h2 id="issues">')]
        shown = [re.sub(r"<[^>]+>", "", html.unescape(item)) for item in re.findall(r"<li[^>]*>(.*?)</li>", section)]
        with open_archive(made.archive) as a:
            expected = [f.line() for f in diagnose(a, name)]
        assert shown == expected, name
        assert bool(expected) != ("Nothing found by the" in section), name


def _issues(page: Path) -> list[str]:
    """The known issues a page lists, as text, or its one line when it has none."""
    text = page.read_text(encoding="utf-8")
    section = re.search(r'<h2 id="issues">Known issues</h2>\n(.*?)\n<h2 ', text, re.S).group(1)
    items = re.findall(r"<li[^>]*>(.*?)</li>", section, re.S) or [section]
    return [html.unescape(re.sub(r"<[^>]+>", "", item)).strip() for item in items]


def test_a_log_page_shows_its_known_issues_and_a_version_its_originals(made):
    caveats = tomllib.loads((ROOT / "archive" / "analysis" / "caveats.toml").read_text())["caveat"]  # apart
    caveats.sort(key=lambda c: [int(p) for p in c["section"].split(".")])  # the paper's order
    hpc2n = [f"paper §{c['section']} {c['topic']}: {c['text']}" for c in caveats if "HPC2N-2002" in c["logs"]]
    nasa = [f"paper §{c['section']} {c['topic']}: {c['text']}" for c in caveats if "NASA-iPSC-1993" in c["logs"]]
    note = f"your note of {NOTE[1]}: {NOTE[0]}"
    assert len(hpc2n) == 3 and len(nasa) == 3
    assert _issues(page_of(made, CLEANED)) == [*hpc2n, note]
    assert _issues(page_of(made, f"{CLEANED}@{PUBLISHED}")) == [*hpc2n, note]  # the original's, whatever version
    assert _issues(page_of(made, "NASA-iPSC-1993-3-head228")) == nasa
    assert _issues(page_of(made, ODD)) == [f'None that wla knows of. wla note {ODD} "..." keeps what you know of it.']
    assert "&lt;HPC2N&gt; &amp; its head" in page_of(made, CLEANED).read_text(encoding="utf-8")


def decisions_of(made, page: Path) -> dict:
    script = next(a["src"] for t, a in tags(page) if t == "script" and "decisions" in a.get("src", ""))
    text = (page.parent / script).read_text(encoding="utf-8")
    assert text.startswith("window.wlaDecisions = ") and text.endswith(";\n")
    return json.loads(text[len("window.wlaDecisions = "):-2])


def test_a_version_page_lists_its_steps_and_decisions(made):
    page = page_of(made, f"{CLEANED}@{PUBLISHED}")
    text = html.unescape(page.read_text(encoding="utf-8"))
    jobs = pandas_log(CLEANED)
    dropped = jobs[jobs.user == made.busiest_user]
    assert "Step 1: normalize version 1" in text and "Step 2: filter version 1" in text
    assert f"<strong>{len(dropped):,} dropped</strong>" in text
    assert "the busiest user" in text and f'user={made.busiest_user}' in text
    data = decisions_of(made, page)
    drops = [dict(zip(data["columns"], r)) for r in data["rows"] if r[data["columns"].index("action")] == "drop"]
    assert sorted(d["job"] for d in drops) == sorted(dropped.job.tolist())
    assert {data["reasons"][d["reason"]] for d in drops} == {"the busiest user"}
    # The draft was built from the published version: its lookup holds both versions' decisions.
    draft = decisions_of(made, page_of(made, f"{CLEANED}@{DRAFT}"))
    assert {r[0] for r in draft["rows"]} == {f"{CLEANED}@{PUBLISHED}", f"{CLEANED}@{DRAFT}"}


def test_published_file_and_provenance_are_linked_only_when_published(made):
    pub = page_of(made, f"{CLEANED}@{PUBLISHED}")
    links = [a["href"] for t, a in tags(pub) if t == "a" and "href" in a]
    swf = next(pub.parent / h for h in links if h.endswith(".swf.gz"))
    prov = next(pub.parent / h for h in links if h.endswith(".prov.json"))
    assert swf.read_bytes() == made.published_file.read_bytes()
    with open_archive(made.archive) as a:
        recorded = a.rows("SELECT published_sha256 FROM versions WHERE version = ?", [PUBLISHED])[0][0]
    assert hashlib.sha256(gzip.decompress(swf.read_bytes())).hexdigest() == recorded
    doc = json.loads(prov.read_text(encoding="utf-8"))
    assert any(e.get("prov:label") == f"{CLEANED}@{PUBLISHED}" for e in doc["entity"].values())
    draft = page_of(made, f"{CLEANED}@{DRAFT}")
    assert not [a for t, a in tags(draft) if t == "a" and a.get("href", "").startswith("../files/")]
    assert sorted(p.name for p in (made.site / "files").iterdir()) == sorted([swf.name, prov.name])


def test_nothing_comes_from_the_network(made):
    for page in made.site.rglob("*.html"):
        for tag, attrs in tags(page):
            for key in ("href", "src"):
                assert "://" not in attrs.get(key, "") and not attrs.get(key, "").startswith("//"), (page, tag)
    for static in (made.site / "static").iterdir():
        if static.suffix in (".css", ".js"):
            assert "http" not in static.read_text(encoding="utf-8")
    assert not re.search(r"\b(fetch\(|XMLHttpRequest|import\()", (made.site / "static" / "site.js").read_text())


@pytest.mark.slow
def test_any_log_name_makes_a_page_inside_the_site(made):
    page = page_of(made, ODD)
    assert page.resolve().parent == (made.site / "logs").resolve() and page.is_file()
    assert f"<h1>{html.escape(ODD)}</h1>" in page.read_text(encoding="utf-8")
    names = ["a", "A", ".hidden", "..", "x/y", "x~2Fy", "é", "e\u0301", "n" * 128, "n" * 127 + "m"]
    made_stems = stems(names)
    assert len(set(made_stems.values())) == len(names)
    assert len({s.casefold() for s in made_stems.values()}) == len(names)
    for stem in made_stems.values():
        assert re.fullmatch(r"[A-Za-z0-9_.@~-]+", stem) and not stem.startswith(".") and len(stem) < 120


def test_a_folder_of_other_files_is_refused(made, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    refused = wla("site", "-o", other, archive=made.archive).one_error_line()
    assert "holds files and no site wla wrote" in refused
    assert [p.name for p in other.iterdir()] == ["notes.txt"]


def test_a_version_without_jobs_has_a_page_that_says_why(made):
    """The catalog lists no version without jobs, but its log's page links it."""
    log = page_of(made, ODD)
    href = next(a["href"] for t, a in tags(log) if t == "a" and a.get("href", "").endswith(f"@{EMPTY}.html"))
    page = log.parent / href
    text = page.read_text(encoding="utf-8")
    assert text.count("Not drawn: the log has no jobs.") == 8
    assert "&lt;b&gt;every&lt;/b&gt; job" in text and "<b>every</b>" not in text
    data = decisions_of(made, page)
    assert sorted(r[data["columns"].index("job")] for r in data["rows"]) == sorted(pandas_log(ODD_SOURCE).job)
