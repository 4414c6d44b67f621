"""A batch of files: parallel inside, deterministic outside."""
from __future__ import annotations

import gzip
import shutil

from real_logs import data_dir
from wla.archive import open as open_archive
from wla.archive.store.ingest import ingest

FILES = ["NASA-iPSC-1993-3-head228", "KTH-SP2-1996-2.1-cln", "ANL-Intrepid-2009-1-head10",
         "HPC2N-2002-2.2-head3170", "lublin_256"]


def _paths():
    return [data_dir() / f"{n}.swf.gz" for n in FILES]


def test_ids_and_report_order_do_not_depend_on_timing(tmp_path):
    seen = []
    outcomes = []
    for run in range(3):
        with open_archive(tmp_path / f"{run}.duckdb", write=True) as a:
            order = []
            res = ingest(a, _paths(), workers=2 + run, on_result=lambda r, seen_here=order: seen_here.append(r.name))
            seen.append(order)
            outcomes.append(a.df("SELECT log_id, name, jobs FROM logs ORDER BY log_id")
                            .values.tolist())
            assert [r.name for r in res] == FILES
    assert seen == [FILES] * 3
    assert outcomes[0] == outcomes[1] == outcomes[2]
    assert [row[1] for row in outcomes[0]] == FILES  # ids follow the file order


def test_same_bytes_under_two_names_in_one_batch(tmp_path):
    src = data_dir() / "KTH-SP2-1996-2.1-cln.swf.gz"
    first, second = tmp_path / "alpha.swf.gz", tmp_path / "beta.swf"
    shutil.copy(src, first)
    second.write_bytes(gzip.decompress(src.read_bytes()))  # same text, not gzip'd
    for workers in (1, 2):
        with open_archive(tmp_path / f"w{workers}.duckdb", write=True) as a:
            r1, r2 = ingest(a, [first, second], workers=workers)
            assert (r1.status, r2.status) == ("ingested", "unchanged")
            assert "as log 'alpha'" in r2.message
            assert a.log_names() == ["alpha"]
            assert a.df("SELECT count(*) AS n FROM jobs").n.item() == 28476


def test_two_files_with_one_name_go_in_order(tmp_path):
    a_dir, b_dir = tmp_path / "a", tmp_path / "b"
    a_dir.mkdir(), b_dir.mkdir()
    shutil.copy(data_dir() / "HPC2N-2002-2.2-head3170.swf.gz", a_dir / "x.swf.gz")
    shutil.copy(data_dir() / "lublin_256.swf.gz", b_dir / "x.swf.gz")
    with open_archive(tmp_path / "n.duckdb", write=True) as a:
        r1, r2 = ingest(a, [a_dir / "x.swf.gz", b_dir / "x.swf.gz"])
        assert (r1.status, r2.status) == ("ingested", "failed")
        assert "already holds a different log named 'x'" in r2.message
        r1, r2 = ingest(a, [a_dir / "x.swf.gz", b_dir / "x.swf.gz"], replace=True)
        assert (r1.status, r2.status) == ("unchanged", "replaced")
        assert a.df("SELECT jobs FROM logs WHERE name = 'x'").jobs.item() == 10000
