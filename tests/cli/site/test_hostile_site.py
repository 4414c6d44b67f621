"""`wla site` against a folder someone else has touched: a rebuild removes
only what the site wrote before (its manifest, `.wla-site`, says what), a
manifest that is not one wla wrote is refused, no write follows a symbolic
link, and the root, the home folder and a symlink loop are refused. Every
refusal is one line and leaves every file, inside the folder and out, as it
was."""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from cli_run import wla
from site_example import ODD, example

ONE = "NASA-iPSC-1993-3-head228"  # the smallest log of the example archive: a fast site
ODD_STEM = "~2E.~2Fodd~20name~2F~C3~A9~20~7Ex"  # ODD's file stem, escaped by hand
FORMAT = "wla-site manifest 1"


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    return example(tmp_path_factory)


def state(folder: Path) -> dict[str, str]:
    """Every entry under `folder` without following a link: a file's sha256,
    a link's target, a folder as such."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            rel = path.relative_to(folder).as_posix()
            if path.is_symlink():
                out[rel] = "-> " + os.readlink(path)
            elif path.is_dir():
                out[rel] = "dir"
            else:
                out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def site(made, out: Path, *logs: str):
    return wla("site", *logs, "-o", out, archive=made.archive)


def built(made, out: Path, *logs: str) -> dict[str, str]:
    run = site(made, out, *logs)
    assert run.status == 0, run.err
    return state(out)


def listed(out: Path) -> list[str]:
    lines = (out / ".wla-site").read_text(encoding="utf-8").splitlines()
    assert lines[0] == FORMAT
    return lines[1:]


def user_files(out: Path) -> dict[str, str]:
    (out / "CNAME").write_text("archive.example.org\n")
    (out / ".nojekyll").write_bytes(b"")
    (out / "notes").mkdir()
    (out / "notes" / "todo.html").write_text('<a href="https://example.org/">elsewhere</a>\n')
    return {p: h for p, h in state(out).items() if p.split("/")[0] in ("CNAME", ".nojekyll", "notes")}


def test_the_manifest_names_every_file_the_site_wrote_in_order(made, tmp_path):
    out = tmp_path / "s"
    files = built(made, out, ONE)
    written = sorted(p for p, h in files.items() if h != "dir" and p != ".wla-site")
    assert listed(out) == written and "index.html" in written and len(written) == 10
    assert (out / ".wla-site").read_bytes() == (FORMAT + "\n" + "".join(p + "\n" for p in written)).encode()


@pytest.mark.slow
def test_a_rebuild_keeps_the_files_a_user_added(made, tmp_path):
    out = tmp_path / "s"
    site_files = built(made, out, ONE)
    mine = user_files(out)
    assert built(made, out, ONE) == {**site_files, **mine}


@pytest.mark.slow  # seconds of a worker; CI's slow step runs it
def test_a_user_file_survives_two_rebuilds(made, tmp_path):
    out = tmp_path / "s"
    built(made, out, ONE)
    mine = user_files(out)
    (out / "logs" / "mine.txt").write_text("beside the site's pages\n")
    mine["logs/mine.txt"] = hashlib.sha256(b"beside the site's pages\n").hexdigest()
    built(made, out)  # every log
    after = built(made, out, ONE)
    assert {p: after.get(p) for p in mine} == mine
    assert not any(p.startswith("versions/") for p in after)  # the site's own files of the full build went


@pytest.mark.slow
def test_a_rebuild_with_one_log_fewer_removes_only_that_logs_files(made, tmp_path):
    out, alone = tmp_path / "s", tmp_path / "alone"
    first = built(made, out, ONE, ODD)
    mine = user_files(out)
    second = built(made, out, ONE)
    only_one = built(made, alone, ONE)  # the same log in a new folder: what the site of ONE is
    assert second == {**only_one, **mine}
    dropped = {p for p in first if p not in second}
    assert {p for p in dropped if first[p] != "dir"} == \
        {f"logs/{ODD_STEM}.html", f"versions/{ODD_STEM}@none.html", f"data/{ODD_STEM}@none-decisions.js",
         *(f"figures/{ODD_STEM}-{k}.png" for k in ("cycles", "distributions", "flurries", "utilization",
                                                    "requests", "inter_starts", "requested_time", "size_run"))}
    assert {p for p in dropped if first[p] == "dir"} == {"versions", "data"}


@pytest.mark.parametrize("manifest", [b"", b"garbage\x00\xff\n", b"A site written by `wla site`\n",
                                      f"{FORMAT}\n../x\n".encode(), f"{FORMAT}\nindex.html\nindex.html\n".encode(),
                                      f"{FORMAT}\nlogs/./a.html\n".encode()],
                         ids=["empty", "garbage", "old-marker", "parent", "twice", "dot"])
def test_a_marker_without_a_manifest_wla_wrote_is_refused(made, tmp_path, manifest):
    out = tmp_path / "s"
    out.mkdir()
    (out / ".wla-site").write_bytes(manifest)
    (out / "index.html").write_text("a page of mine\n")
    (tmp_path / "x").write_text("outside\n")
    before = state(out)
    refused = site(made, out, ONE).one_error_line()
    assert str(out / ".wla-site") in refused and "not a list of files wla wrote" in refused
    assert state(out) == before and (tmp_path / "x").read_text() == "outside\n"


def test_a_manifest_naming_an_absolute_path_is_refused(made, tmp_path):
    out, victim = tmp_path / "s", tmp_path / "victim.html"
    victim.write_text("not the site's\n")
    built(made, out, ONE)
    with open(out / ".wla-site", "a", encoding="utf-8") as fh:
        fh.write(f"{victim}\n")
    before = state(out)
    refused = site(made, out, ONE).one_error_line()
    assert "not a list of files wla wrote" in refused and str(victim) in refused
    assert state(out) == before and victim.read_text() == "not the site's\n"


def test_a_manifest_naming_a_path_through_a_symlink_is_refused(made, tmp_path):
    """`figures` was the site's; now it leads elsewhere, where the manifest's
    figure names are someone else's files."""
    out, elsewhere = tmp_path / "s", tmp_path / "elsewhere"
    built(made, out, ONE)
    (out / "figures").rename(elsewhere)
    (out / "figures").symlink_to(elsewhere)
    before, theirs = state(out), state(elsewhere)
    refused = site(made, out).one_error_line()
    assert str(out / "figures") in refused and "symbolic link" in refused
    assert state(out) == before and state(elsewhere) == theirs


@pytest.mark.slow
def test_a_manifest_entry_that_became_a_symlink_is_not_followed(made, tmp_path):
    """A file of the first build that the second does not write, replaced by
    a link to a file outside: the link stays, and so does its target."""
    out, victim = tmp_path / "s", tmp_path / "victim.html"
    victim.write_text("not the site's\n")
    built(made, out, ONE, ODD)
    page = out / "logs" / f"{ODD_STEM}.html"
    page.unlink()
    page.symlink_to(victim)
    after = built(made, out, ONE)
    assert after[f"logs/{ODD_STEM}.html"] == f"-> {victim}" and victim.read_text() == "not the site's\n"
    assert f"logs/{ODD_STEM}.html" not in listed(out)


@pytest.mark.parametrize("target", ["index.html", "static", "both"])
def test_no_write_follows_a_symlink(made, tmp_path, target):
    out, elsewhere, victim = tmp_path / "s", tmp_path / "elsewhere", tmp_path / "victim"
    elsewhere.mkdir()
    (elsewhere / "site.css").write_text("theirs\n")
    victim.write_text("theirs\n")
    built(made, out, ONE)
    if target in ("static", "both"):
        for f in (out / "static").iterdir():
            f.unlink()
        (out / "static").rmdir()
        (out / "static").symlink_to(elsewhere)
    if target in ("index.html", "both"):
        (out / "index.html").unlink()
        (out / "index.html").symlink_to(victim)
    before, theirs = state(out), state(elsewhere)
    refused = site(made, out, ONE).one_error_line()
    named = out / ("index.html" if target == "index.html" else "static")
    assert f"{named}:" in refused and "symbolic link" in refused
    assert state(out) == before and state(elsewhere) == theirs and victim.read_text() == "theirs\n"


@pytest.mark.slow  # seconds of a worker; CI's slow step runs it
def test_a_symlinked_folder_the_site_has_not_written_yet_is_refused(made, tmp_path):
    """The first build wrote no version; a link where versions go is found
    before anything is written."""
    out, elsewhere = tmp_path / "s", tmp_path / "elsewhere"
    elsewhere.mkdir()
    built(made, out, ONE)
    (out / "versions").symlink_to(elsewhere)
    before = state(out)
    refused = site(made, out).one_error_line()
    assert f"{out / 'versions'}:" in refused and "symbolic link" in refused
    assert state(out) == before and state(elsewhere) == {}


@pytest.mark.slow
def test_a_file_the_site_did_not_write_is_not_overwritten(made, tmp_path):
    out = tmp_path / "s"
    built(made, out, ONE)
    (out / "logs" / f"{ODD_STEM}.html").write_text("my page\n")
    before = state(out)
    refused = site(made, out, ONE, ODD).one_error_line()
    assert f"{out / 'logs' / ODD_STEM}.html:" in refused and "not written by wla" in refused
    assert state(out) == before


def test_the_root_folder_is_refused(made):
    before = sorted(os.listdir("/"))
    refused = site(made, Path("/"), ONE).one_error_line()
    assert refused == "wla: /: the root of the file system is no folder for a site; give a new or empty folder"
    assert sorted(os.listdir("/")) == before


def test_the_home_folder_is_refused(made, tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".profile").write_text("mine\n")
    (home / ".wla-site").write_text(f"{FORMAT}\n.profile\n")  # even one that looks like a site
    monkeypatch.setenv("HOME", str(home))
    before = state(home)
    refused = site(made, home, ONE).one_error_line()
    assert refused == f"wla: {home}: the home folder is no folder for a site; give a new or empty folder"
    assert state(home) == before


def test_a_symlink_loop_is_refused(made, tmp_path):
    loop = tmp_path / "loop"
    loop.symlink_to("loop")
    refused = site(made, loop, ONE).one_error_line()
    assert refused.startswith(f"wla: {loop}: ") and "symbolic link" in refused
    assert state(tmp_path) == {"loop": "-> loop"}


def test_a_link_to_nothing_is_refused(made, tmp_path):
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "nothing")
    refused = site(made, link, ONE).one_error_line()
    assert refused.startswith(f"wla: {link}: ") and "symbolic link" in refused
    assert state(tmp_path) == {"link": f"-> {tmp_path / 'nothing'}"}


def test_a_marker_of_an_earlier_wla_says_so(made, tmp_path):
    out = tmp_path / "s"
    out.mkdir()
    (out / ".wla-site").write_text("A site written by `wla site`; wla rewrites this folder whole.\n")
    (out / "CNAME").write_text("archive.example.org\n")
    before = state(out)
    refused = site(made, out, ONE).one_error_line()
    assert "a site of an earlier wla, which listed no files" in refused
    assert state(out) == before


def test_a_manifest_that_is_a_symlink_is_refused(made, tmp_path):
    out, theirs = tmp_path / "s", tmp_path / "theirs"
    built(made, out, ONE)
    (out / ".wla-site").rename(theirs)
    (out / ".wla-site").symlink_to(theirs)
    before, text = state(out), theirs.read_bytes()
    refused = site(made, out).one_error_line()
    assert f"{out / '.wla-site'}:" in refused and "symbolic link" in refused
    assert state(out) == before and theirs.read_bytes() == text


@pytest.mark.slow
def test_a_hard_link_to_a_file_outside_is_not_written(made, tmp_path):
    out, victim = tmp_path / "s", tmp_path / "victim"
    victim.write_text("theirs\n")
    built(made, out, ONE)
    (out / "index.html").unlink()
    os.link(victim, out / "index.html")
    before = state(out)
    refused = site(made, out, ONE).one_error_line()
    assert f"{out / 'index.html'}:" in refused and "hard link" in refused
    assert state(out) == before and victim.read_text() == "theirs\n"


def test_a_pipe_where_a_page_goes_is_refused_without_waiting(made, tmp_path):
    out = tmp_path / "s"
    built(made, out, ONE)
    (out / "index.html").unlink()
    os.mkfifo(out / "index.html")
    refused = site(made, out, ONE).one_error_line()
    assert f"{out / 'index.html'}: not a file, where the site writes one" in refused
    assert (out / "index.html").is_fifo()


def test_an_output_path_that_links_to_a_folder_is_written_through(made, tmp_path):
    """The link named on the command line is the user's choice; only links
    below it are refused."""
    real, link = tmp_path / "real", tmp_path / "link"
    real.mkdir()
    link.symlink_to(real)
    assert site(made, link, ONE).status == 0
    assert listed(real)[-1] == "static/site.js" and link.is_symlink()
