"""Files that are not readable regular files: FIFOs, devices, sockets, folders
named *.swf, symbolic link loops and files the user may not read. Each is
refused in one line naming the file and what it is, without ever waiting on
it or reading it; in a folder search it is one failed file and the others
still go in."""
from __future__ import annotations

import errno
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from as_user import ROOT, as_nobody, shared_folder
from cli_run import wla
from wla.archive import InputError
from wla.archive import open as open_archive
from wla.archive.store.ingest import ingest
from wla.archive.swf import rawfile
from wla.archive.swf.reader import read_swf

JOBS = "".join(f"{j} {10 * j} 5 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1\n" for j in range(1, 4))


def within(seconds: float, fn, *args, **kwargs):
    """fn(*args, **kwargs), failing the test if it has not returned in time
    (it would be waiting on a FIFO or reading a device without end)."""
    out: dict = {}

    def run():
        try:
            out["value"] = fn(*args, **kwargs)
        except BaseException as e:  # handed to the test
            out["error"] = e

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"{fn.__name__} still running after {seconds} s"
    if "error" in out:
        raise out["error"]
    return out["value"]


def make_special(folder: Path, kind: str) -> Path:
    """A file of `kind` named like a log, in `folder`."""
    path = folder / f"{kind}.swf"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "chardev":
        path.symlink_to("/dev/zero")  # read without end if it were read at all
    elif kind == "folder":
        path.mkdir()
    elif kind == "loop":
        path.symlink_to(path.name)
    elif kind == "dangling":
        path.symlink_to(folder / "nowhere.swf")
    elif kind == "socket":
        s = socket.socket(socket.AF_UNIX)
        cwd = os.getcwd()
        os.chdir(folder)  # a socket's path is limited to about 100 bytes
        try:
            s.bind(path.name)
        finally:
            os.chdir(cwd)
            s.close()
    elif kind == "blockdev":
        try:
            os.mknod(path, stat.S_IFBLK | 0o600, os.makedev(7, 0))
        except OSError as e:
            pytest.skip(f"cannot make a block device node here ({e.strerror})")
    return path


KINDS = {
    "fifo": "is a FIFO, not a regular file",
    "chardev": "is a character device, not a regular file",
    "blockdev": "is a block device, not a regular file",
    "socket": "is a socket, not a regular file",
    "folder": "is a folder, not a regular file",
    "loop": "symbolic link loop",
    "dangling": "symbolic link to a file that does not exist",
}


@pytest.mark.parametrize("kind", KINDS)
def test_reading_a_special_file_is_refused_at_once(tmp_path, kind):
    path = make_special(tmp_path, kind)
    with pytest.raises(InputError) as info:
        within(10, read_swf, path)
    assert str(info.value) == f"{path}: {KINDS[kind]}"
    assert (info.value.file, info.value.line) == (str(path), None)


@pytest.mark.parametrize("kind", ["fifo", "chardev", "socket", "loop", "dangling"])
def test_ingest_names_a_special_file_and_takes_the_others(tmp_path, kind):
    """Named on the command line beside good files: one failed result."""
    path = make_special(tmp_path, kind)
    good = tmp_path / "good.swf"
    good.write_text(JOBS)
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        bad_result, good_result = within(30, ingest, a, [path, good])
        assert (bad_result.status, bad_result.message) == ("failed", f"{path}: {KINDS[kind]}")
        assert (good_result.status, good_result.jobs) == ("ingested", 3)
        assert a.log_names() == ["good"]


def test_a_folder_search_reports_every_entry_named_like_a_log(tmp_path):
    """Entries named *.swf / *.swf.gz that are no regular file are failed
    files, not skipped; everything else named so is ingested."""
    folder = tmp_path / "logs"
    folder.mkdir()
    specials = {kind: make_special(folder, kind) for kind in ("fifo", "chardev", "folder", "loop")}
    (folder / "folder.swf" / "inside.swf").write_text(JOBS)
    (folder / "b.swf").write_text(JOBS.replace(" 5 100 ", " 6 100 "))
    (folder / "notes.txt").write_text("not a log")
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        results = within(30, ingest, a, [folder])
        got = {r.path: (r.status, r.message) for r in results}
        assert a.log_names() == ["b", "inside"]
    want = {str(p): ("failed", f"{p}: {KINDS[k]}") for k, p in specials.items()}
    assert {p: v for p, v in got.items() if v[0] == "failed"} == want
    assert sorted(p for p, v in got.items() if v[0] == "ingested") == [
        str(folder / "b.swf"), str(folder / "folder.swf" / "inside.swf")]


def test_cli_special_files_one_line_each(tmp_path):
    for kind in ("fifo", "chardev", "loop"):
        path = make_special(tmp_path, kind)
        run = within(30, wla, "ingest", path, archive=tmp_path / "a.duckdb")
        assert run.one_error_line() == f"wla: {path}: {KINDS[kind]}"
    folder = tmp_path / "search"
    folder.mkdir()
    fifo = make_special(folder, "fifo")
    (folder / "ok.swf").write_text(JOBS)
    run = within(30, wla, "ingest", folder, archive=tmp_path / "a.duckdb")
    assert run.one_error_line() == f"wla: {fifo}: {KINDS['fifo']}"
    assert run.out.startswith("ingested  ok: 3 jobs")


def test_a_fifo_swapped_in_after_the_check_is_not_waited_on(tmp_path, monkeypatch):
    """The name is checked before it is opened, and the descriptor after:
    a regular file replaced by a FIFO in between is caught by the second."""
    path = tmp_path / "swapped.swf"
    path.write_text(JOBS)
    real_stat = os.stat

    def stat_then_swap(p, *args, **kwargs):
        result = real_stat(p, *args, **kwargs)
        if os.fspath(p) == str(path):
            path.unlink()
            os.mkfifo(path)
        return result

    monkeypatch.setattr(rawfile.os, "stat", stat_then_swap)
    with pytest.raises(InputError, match="is a FIFO, not a regular file"):
        within(10, read_swf, path)


def test_permission_denied_is_one_line(tmp_path, monkeypatch):
    path = tmp_path / "secret.swf"
    path.write_text(JOBS)
    real_open = os.open

    def refuse(p, flags, *args, **kwargs):
        if os.fspath(p) == str(path):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(p))
        return real_open(p, flags, *args, **kwargs)

    monkeypatch.setattr(rawfile.os, "open", refuse)
    with pytest.raises(InputError) as info:
        read_swf(path)
    assert str(info.value) == f"{path}: cannot read file (Permission denied)"
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        [r] = ingest(a, [path])
        assert (r.status, r.message) == ("failed", f"{path}: cannot read file (Permission denied)")
        assert a.log_names() == []


def test_permission_denied_for_a_real_user(tmp_path):
    """The same, for real: a file only root may read, read by user 65534."""
    if os.geteuid() != 0:
        path = tmp_path / "secret.swf"
        path.write_text(JOBS)
        path.chmod(0)
        if os.access(path, os.R_OK):
            pytest.skip("this user can read a file of mode 000")
        with pytest.raises(InputError, match="cannot read file [(]Permission denied[)]$"):
            read_swf(path)
        return
    folder = shared_folder()
    try:
        secret = folder / "secret.swf"
        secret.write_text(JOBS)
        secret.chmod(0o600)  # root's
        prefix, why = as_nobody(folder)
        if prefix is None:
            pytest.skip(why)
        script = ("import json, sys\n"
                  "from wla.archive.swf.reader import read_swf\n"
                  "from wla.archive import InputError\n"
                  "try:\n    read_swf(sys.argv[1]); print(json.dumps('read'))\n"
                  "except InputError as e:\n    print(json.dumps(str(e)))\n")
        out = subprocess.run(prefix + [sys.executable, "-c", script, str(secret)],
                             capture_output=True, text=True, timeout=300, cwd=ROOT)
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout.splitlines()[-1]) == f"{secret}: cannot read file (Permission denied)"
    finally:
        shutil.rmtree(folder)


def test_a_file_name_with_a_line_break_stays_one_line(tmp_path):
    path = tmp_path / "two\nlines.swf"
    path.write_text("1 2 3\n")
    with pytest.raises(InputError) as info:
        read_swf(path)
    message = str(info.value)
    assert "\n" not in message and message.startswith(str(tmp_path) + "/two\\nlines.swf:1: ")
    assert info.value.file == str(path)


def test_a_missing_name_is_still_refused_before_anything_is_read(tmp_path):
    with open_archive(tmp_path / "a.duckdb", write=True) as a:
        with pytest.raises(InputError, match="no such file or folder"):
            ingest(a, [tmp_path / "nowhere.swf"])
        with pytest.raises(InputError, match="no such file or folder"):
            ingest(a, [tmp_path / "no-folder" / "x.swf"])
