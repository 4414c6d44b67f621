"""`wla pull` against servers that misbehave on purpose (tests/pull_server.py):
each ends in bounded time with one line, keeps nothing that is not a log
under a log's name, writes nothing outside its folder through a planted
link, and lets no server text reach the terminal as control characters."""
from __future__ import annotations

import gzip
import hashlib
import os
import random
import time
from pathlib import Path

import pytest
from cli_run import wla
from pull_server import ESCAPES, dead_url, serve
from real_logs import data_dir
from wla.archive import open as open_archive
from wla.archive.kernel.errors import InputError, Unreachable, WlaError
from wla.archive.pull.pull import HELD, pull
from wla.archive.pull.verify import check_content
from wla.archive.store.ingest import ingest

NASA = "NASA-iPSC-1993-3.1-cln"  # the catalog has its size and sha256
UNSIZED = "RICC-2010-2"  # the catalog has neither: only what the file holds can be checked
HEAD = "NASA-iPSC-1993-3-head228"
BOUND = 30.0  # seconds past the deadline a hostile pull may take, on any machine
CONTROL = ("\x1b", "\x07")


def _bytes(name: str) -> bytes:
    return (data_dir() / f"{name}.swf.gz").read_bytes()


class Sleeps(list):
    """The waits between attempts, taken instead of slept."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def _snapshot(root: Path, skip: str = "pwa") -> dict[str, object]:
    """Every entry below `root` but the download folder: its kind and bytes (or link target)."""
    seen: dict[str, object] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if rel.parts[0] == skip:
            continue
        if path.is_symlink():
            seen[str(rel)] = ("link", os.readlink(path))
        elif path.is_file():
            seen[str(rel)] = ("file", hashlib.sha256(path.read_bytes()).hexdigest())
        else:
            seen[str(rel)] = ("other", path.stat().st_mode)
    return seen


@pytest.fixture
def archive(tmp_path) -> Path:
    """An archive already holding a log: a failed pull must leave it byte for byte."""
    where = tmp_path / "a.duckdb"
    with open_archive(where, write=True) as a:
        ingest(a, [data_dir() / f"{HEAD}.swf.gz"])
    return where


def _pull(tmp_path: Path, archive: Path, url: str, *args: str, name: str = UNSIZED):
    """`wla pull NAME --url URL ARGS`, timed, checking that nothing outside
    the download folder changed (the archive included)."""
    before = _snapshot(tmp_path)
    start = time.monotonic()
    run = wla("pull", name, "--url", url, *args, archive=archive)
    took = time.monotonic() - start
    assert _snapshot(tmp_path) == before
    for text in (run.out, run.err):
        assert not any(c in text for c in CONTROL), repr(text)
    return run, took


def _nothing_kept(tmp_path: Path) -> None:
    folder = tmp_path / "pwa"
    assert not folder.exists() or [p.name for p in folder.iterdir()] == []


# -- time: dripping and silent servers -------------------------------------------------------------

@pytest.mark.parametrize("mode", [pytest.param("drip", marks=pytest.mark.slow),
                                  pytest.param("drip-head", marks=pytest.mark.slow), "silent"])
def test_a_dripping_or_silent_server_is_left_at_the_deadline(tmp_path, archive, mode):
    with serve(data_dir(), mode) as url:
        run, took = _pull(tmp_path, archive, url, "--deadline", "3")
    line = run.one_error_line()
    assert "3 s deadline" in line and line.startswith(f"wla: {url}"), line
    assert took < 3 + BOUND
    assert not (tmp_path / "pwa" / f"{UNSIZED}.swf.gz").exists()


def test_a_server_slower_than_the_minimum_rate_is_left_before_the_deadline(tmp_path):
    sleeps = Sleeps()
    start = time.monotonic()
    with serve(data_dir(), "drip") as url:
        [result] = pull(tmp_path / "a.duckdb", [NASA], base_url=url, sleep=sleeps, attempts=2,
                        deadline=600, min_rate=100, rate_window=1)
    took = time.monotonic() - start
    assert result.status == "failed" and len(url.requests) == 2 and sleeps == [1.0]
    assert str(result.error).endswith("gave up after 2 attempts: slower than 100 bytes/s over 1 s"), result.error
    assert took < 600  # ended by the rate, never by the deadline
    assert not (tmp_path / "a.duckdb").exists()


def test_a_server_that_never_answers_counts_as_down_after_the_read_timeout(tmp_path):
    sleeps = Sleeps()
    with serve(data_dir(), "silent") as url:
        [result] = pull(tmp_path / "a.duckdb", [NASA], base_url=url, sleep=sleeps, attempts=2, read_timeout=1)
    assert isinstance(result.error, Unreachable) and len(url.requests) == 2
    assert str(result.error) == (f"{url}l_nasa_ipsc/{NASA}.swf.gz: the host did not answer (2 attempts): "
                                 "no answer within 1 s")


def test_the_limits_are_checked_like_every_parameter(tmp_path):
    for given in ({"deadline": 0}, {"min_rate": -1}, {"rate_window": float("nan")}, {"read_timeout": 0},
                  {"max_size": 0}):
        with pytest.raises(WlaError, match=f"{next(iter(given))} must be"):
            pull(tmp_path / "a.duckdb", [NASA], base_url="http://127.0.0.1:9/", **given)
    run = wla("pull", NASA, "--deadline", "-1", "--url", "http://127.0.0.1:9/", archive=tmp_path / "a.duckdb")
    assert run.one_error_line().startswith("wla: --deadline must be")
    assert list(tmp_path.iterdir()) == []


# -- dead hosts ------------------------------------------------------------------------------------

def test_a_dead_host_is_given_up_on_after_the_first_logs_attempts(tmp_path):
    sleeps = Sleeps()
    results = pull(tmp_path / "a.duckdb", all=True, base_url=dead_url(), sleep=sleeps)
    assert sleeps == [1.0, 2.0, 4.0, 8.0]  # one log's waits, not one per log
    first, *rest = results
    assert first.status == "failed" and isinstance(first.error, Unreachable)
    assert "cannot connect" in first.message and f"{len(rest)} more logs from 127.0.0.1:" in first.message
    assert rest and {(r.status, r.error, r.attempts) for r in rest} == {("skipped", None, 0)}
    assert not (tmp_path / "a.duckdb").exists()


def test_a_host_that_hangs_up_is_asked_five_times_in_all(tmp_path):
    sleeps = Sleeps()
    with serve(data_dir(), "hangup") as url:
        results = pull(tmp_path / "a.duckdb", all=True, base_url=url, sleep=sleeps)
        assert len(url.requests) == 5 and len({name for name, _ in url.requests}) == 1
    assert sleeps == [1.0, 2.0, 4.0, 8.0]
    assert str(results[0].error) == (f"{results[0].url}: the host did not answer (5 attempts): the connection "
                                     "closed before any answer")
    assert results[0].message.endswith(f"; {len(results) - 1} more logs from {url[7:-1]} skipped")
    assert [r.status for r in results[1:]] == ["skipped"] * (len(results) - 1)


def test_pull_all_against_a_dead_host_ends_with_one_line(tmp_path, archive):
    before = _snapshot(tmp_path)
    start = time.monotonic()
    run = wla("pull", "--all", "--url", dead_url(), "--deadline", "3", archive=archive)
    assert time.monotonic() - start < 3 + BOUND and _snapshot(tmp_path) == before
    line = run.one_error_line()
    assert "did not answer" in line and "cannot connect" in line and "skipped" in line, line


# -- what is kept: only gzip'd SWF ------------------------------------------------------------------

@pytest.mark.parametrize("mode, said", [
    ("html", ": an HTML page, not a gzip file; refused, nothing kept"),
    ("not-gzip", ": not a gzip file (it starts with b'    1        0  ')"),  # RICC-2010-2's first job line
    ("gzip-not-swf", ":1: an HTML page inside the gzip data, 2 fields, expected 18: '<!DOCTYPE html>'"),
    ("bad-gzip", ": does not decompress as gzip ("),
])
def test_a_body_that_is_not_a_log_is_refused_and_not_kept(tmp_path, archive, mode, said):
    with serve(data_dir(), mode) as url:
        run, took = _pull(tmp_path, archive, url)
        assert len(url.requests) == 1
    line = run.one_error_line()
    assert line.startswith(f"wla: {url}l_ricc/{UNSIZED}.swf.gz") and said in line, line
    assert run.out == f"1 log in {tmp_path / 'pwa'}: 1 refused\n"
    _nothing_kept(tmp_path)
    with serve(data_dir()) as url:  # the next pull downloads the log, and does not say "kept"
        again = wla("pull", UNSIZED, "--url", url, archive=archive)
    assert again.status == 0 and again.out.startswith(f"downloaded {UNSIZED}:"), again.out
    assert (tmp_path / "pwa" / f"{UNSIZED}.swf.gz").read_bytes() == _bytes(UNSIZED)


def test_a_kept_file_that_is_not_a_log_is_downloaded_again(tmp_path):
    (tmp_path / "pwa").mkdir()
    kept = tmp_path / "pwa" / f"{UNSIZED}.swf.gz"
    kept.write_bytes(b"<html><body>Not here</body></html>\n")
    with serve(data_dir()) as url:
        [result] = pull(tmp_path / "a.duckdb", [UNSIZED], base_url=url)
    assert result.status == "downloaded" and kept.read_bytes() == _bytes(UNSIZED)
    assert result.message == "the kept file was not a log (an HTML page, not a gzip file); downloaded again"
    assert result.ingest.status == "ingested"


def test_a_truncated_or_altered_gzip_file_is_refused_when_the_catalog_has_no_sum(tmp_path):
    whole = _bytes(HEAD)
    cut = tmp_path / "cut.swf.gz"
    cut.write_bytes(whole[:-20])
    with pytest.raises(InputError, match="cut.swf.gz: the gzip data is cut short"):
        check_content(cut, str(cut))
    flipped = tmp_path / "flipped.swf.gz"
    flipped.write_bytes(whole[:-6] + bytes([whole[-6] ^ 1]) + whole[-5:])  # a bit of the CRC-32 of the text
    with pytest.raises(InputError, match=r"does not decompress as gzip \(Error -3 .*incorrect data check\)"):
        check_content(flipped, str(flipped))
    check_content(cut, str(cut), whole=False)  # only the start: a file with a known sum has its sum checked
    empty = tmp_path / "empty.swf.gz"
    empty.write_bytes(gzip.compress(b"", mtime=0))
    with pytest.raises(InputError, match="the gzip data holds no SWF line"):
        check_content(empty, str(empty))


# -- malformed answers and addresses ------------------------------------------------------------------

def test_a_bad_chunk_size_is_one_line(tmp_path, archive):
    with serve(data_dir(), "bad-chunk") as url:
        run, took = _pull(tmp_path, archive, url, "--deadline", "3")
    line = run.one_error_line()
    assert "internal error" not in line and "a malformed chunked body" in line, line
    assert took < 3 + BOUND and not (tmp_path / "pwa" / f"{UNSIZED}.swf.gz").exists()


def test_a_malformed_status_line_is_one_line_without_its_escapes(tmp_path, archive):
    with serve(data_dir(), "bad-status") as url:
        run, took = _pull(tmp_path, archive, url, "--deadline", "3")
    line = run.one_error_line()
    assert "internal error" not in line and "not an HTTP status line" in line and "\\x1b]0;owned" in line, line
    assert took < 3 + BOUND


@pytest.mark.parametrize("url", ["http://[::1", "http://127.0.0.1:99999/", "http://exa mple/", "http://:80/",
                                 f"http://x/{ESCAPES}", "http://x:y/"])
def test_a_malformed_base_url_is_one_line(tmp_path, url):
    run = wla("pull", NASA, "--url", url, archive=tmp_path / "a.duckdb")
    line = run.one_error_line()
    assert line.startswith("wla: base URL ") and "is not" in line, line
    assert not any(c in run.err for c in CONTROL)
    assert list(tmp_path.iterdir()) == []


# -- redirects --------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode, to", [("redirect-file", "file:///etc/passwd"),
                                      ("redirect-ftp", "ftp://127.0.0.1/pub/file.swf.gz"),
                                      ("escape-redirect", "file:///\\x1b]0;owned\\x07\\x1b[2J\\x1b[31m")])
def test_a_redirect_to_another_scheme_is_refused_at_once(tmp_path, archive, mode, to):
    with serve(data_dir(), mode) as url:
        run, _ = _pull(tmp_path, archive, url)
        assert len(url.requests) == 1
    assert run.one_error_line() == (f"wla: {url}l_ricc/{UNSIZED}.swf.gz: redirected to '{to}': only http:// "
                                    "and https:// redirects are followed")
    _nothing_kept(tmp_path)


def test_a_redirect_loop_ends_after_five_redirects(tmp_path, archive):
    with serve(data_dir(), "redirect-loop") as url:
        run, _ = _pull(tmp_path, archive, url)
        assert len(url.requests) == 6
    assert run.one_error_line() == f"wla: {url}l_ricc/{UNSIZED}.swf.gz: more than 5 redirects; given up"


def test_an_http_redirect_is_followed(tmp_path):
    with serve(data_dir(), "redirect") as url:
        [result] = pull(tmp_path / "a.duckdb", [NASA], base_url=url)
        assert url.requests == [(f"{NASA}.swf.gz", None)] * 2
    assert (result.status, result.verified) == ("downloaded", True)
    assert (tmp_path / "pwa" / f"{NASA}.swf.gz").read_bytes() == _bytes(NASA)


# -- sizes ------------------------------------------------------------------------------------------

def test_an_endless_body_is_cut_at_the_size_cap_and_refused(tmp_path, archive):
    with serve(data_dir(), "huge-unsized") as url:
        run, took = _pull(tmp_path, archive, url, "--max-size", "1000000", "--deadline", "60")
    assert run.one_error_line() == (f"wla: {url}l_ricc/{UNSIZED}.swf.gz: more than the 1,000,000 bytes allowed "
                                    "for a log of unknown size; refused, nothing kept")
    assert took < 60 + BOUND
    _nothing_kept(tmp_path)


def test_a_size_announced_above_the_cap_is_refused_before_the_body(tmp_path, archive):
    with serve(data_dir(), "huge-announced") as url:
        run, _ = _pull(tmp_path, archive, url)
        assert len(url.requests) == 1
    assert run.one_error_line() == (f"wla: {url}l_ricc/{UNSIZED}.swf.gz: the server announces 1,099,511,627,776 "
                                    "bytes, more than the 1,073,741,824 allowed for a log of unknown size; "
                                    "refused, nothing kept")
    _nothing_kept(tmp_path)


@pytest.mark.parametrize("name", [NASA, UNSIZED])
def test_bytes_past_the_content_length_are_not_taken(tmp_path, name):
    with serve(data_dir(), "too-long") as url:
        [result] = pull(tmp_path / "a.duckdb", [name], base_url=url)
    assert result.status == "downloaded" and result.size == len(_bytes(name))
    assert (tmp_path / "pwa" / f"{name}.swf.gz").read_bytes() == _bytes(name)


def test_a_chunked_body_is_taken_whole(tmp_path):
    with serve(data_dir(), "chunked") as url:
        [result] = pull(tmp_path / "a.duckdb", [UNSIZED], base_url=url)
    assert result.status == "downloaded" and result.ingest.status == "ingested"
    assert (tmp_path / "pwa" / f"{UNSIZED}.swf.gz").read_bytes() == _bytes(UNSIZED)


# -- planted links and special files ----------------------------------------------------------------

@pytest.mark.parametrize("planted", [f"{NASA}.swf.gz.part", f"{NASA}.swf.gz"])
def test_a_planted_link_is_replaced_never_written_through(tmp_path, planted):
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"precious")
    (tmp_path / "pwa").mkdir()
    (tmp_path / "pwa" / planted).symlink_to(victim)
    (tmp_path / "pwa" / "dangling.part").symlink_to(tmp_path / "created")
    with serve(data_dir()) as url:
        [result] = pull(tmp_path / "a.duckdb", [NASA], base_url=url)
    assert victim.read_bytes() == b"precious" and not (tmp_path / "created").exists()
    target = tmp_path / "pwa" / f"{NASA}.swf.gz"
    assert not target.is_symlink() and target.read_bytes() == _bytes(NASA)
    assert not (tmp_path / "pwa" / f"{NASA}.swf.gz.part").exists()
    assert (result.status, result.verified, result.resumed_from) == ("downloaded", True, 0)
    assert "symbolic link" in result.message


def test_a_link_to_a_file_that_would_grow_the_part_is_not_followed(tmp_path):
    """A planted .part link to a file holding the log's first half would
    make a resumed download append to that file."""
    half = tmp_path / "half.gz"
    half.write_bytes(_bytes(NASA)[:100_000])
    (tmp_path / "pwa").mkdir()
    (tmp_path / "pwa" / f"{NASA}.swf.gz.part").symlink_to(half)
    with serve(data_dir()) as url:
        [result] = pull(tmp_path / "a.duckdb", [NASA], base_url=url)
        assert url.requests == [(f"{NASA}.swf.gz", None)]
    assert half.read_bytes() == _bytes(NASA)[:100_000] and result.status == "downloaded"


@pytest.mark.parametrize("planted", [f"{NASA}.swf.gz", f"{NASA}.swf.gz.part"])
def test_a_fifo_in_place_of_the_file_is_refused_without_waiting(tmp_path, archive, planted):
    (tmp_path / "pwa").mkdir()
    os.mkfifo(tmp_path / "pwa" / planted)
    with serve(data_dir()) as url:
        run, took = _pull(tmp_path, archive, url, name=NASA)
        assert url.requests == []
    assert run.one_error_line() == f"wla: {tmp_path / 'pwa' / planted}: is a FIFO, not a regular file; refused"
    assert took < BOUND


# -- what the server says reaches the terminal escaped ---------------------------------------------

@pytest.mark.parametrize("mode", ["escape", "escape-404"])
def test_escape_sequences_from_the_server_never_reach_the_terminal(tmp_path, archive, mode):
    with serve(data_dir(), mode) as url:
        run, took = _pull(tmp_path, archive, url, "--deadline", "3")
    line = run.one_error_line()
    status = 503 if mode == "escape" else 404
    assert f"HTTP {status} Busy \\x1b]0;owned\\x07\\x1b[2J\\x1b[31mnow" in line, line
    assert took < 3 + BOUND


# -- many misbehaving servers -------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("seed", range(36))
def test_any_server_ends_in_a_kept_log_or_one_line(tmp_path, seed):
    """Each answer drawn from the server's seed: whatever comes of it, the
    pull ends within its deadline and a bound, a file kept is the log, and
    a failure is one line of visible text; a link planted as the part
    (every third seed) leaves its target as it was."""
    name = NASA if seed % 2 else UNSIZED
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"untouched")
    if seed % 3 == 0:
        (tmp_path / "pwa").mkdir()
        (tmp_path / "pwa" / f"{name}.swf.gz.part").symlink_to(outside)
    rng = random.Random(seed)
    deadline = rng.choice([2, 4])
    with serve(data_dir(), "chaos", seed=seed, ranges=rng.random() < 0.7) as url:
        start = time.monotonic()
        [result] = pull(tmp_path / "a.duckdb", [name], base_url=url, attempts=3, sleep=Sleeps(),
                        deadline=deadline, read_timeout=1, rate_window=1, min_rate=1000, max_size=20_000_000)
        took = time.monotonic() - start
    assert took < deadline + BOUND
    assert outside.read_bytes() == b"untouched" and sorted(p.name for p in tmp_path.iterdir()) in (
        ["outside.txt", "pwa"], ["a.duckdb", "outside.txt", "pwa"])
    kept = tmp_path / "pwa" / f"{name}.swf.gz"
    if result.status in HELD:
        assert kept.read_bytes() == _bytes(name), (seed, url.requests)
        assert result.ingest.status == "ingested"
    else:
        assert not kept.exists() and result.error is not None
        text = str(result.error)
        assert "\n" not in text and not any(c in text for c in CONTROL), text
        assert not any((tmp_path / "pwa").glob("*.part")) or result.status == "failed"

