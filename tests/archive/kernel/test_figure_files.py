"""archive/kernel/figure_files.py and plot.save: a figure's format follows
its file's extension, the same figure gives the same bytes in each, and a
name no format has is refused before any work."""
from __future__ import annotations

import pytest
from cli_run import wla
from matplotlib.figure import Figure
from wla.archive.kernel.errors import ParameterError
from wla.archive.kernel.figure_files import figure_format
from wla.archive.kernel.plot import save

MAGIC = {"png": b"\x89PNG\r\n\x1a\n", "svg": b"<?xml", "pdf": b"%PDF-"}


def _figure() -> Figure:
    fig = Figure(figsize=(3, 2))
    ax = fig.subplots()
    ax.plot([0, 1, 2], [2, 0, 1])
    ax.set_title("wait (s)")
    return fig


def test_the_extension_names_the_format_in_any_case():
    assert [figure_format(p) for p in ("a.png", "b.SVG", "dir.x/c.Pdf")] == ["png", "svg", "pdf"]
    for bad in ("a.jpg", "noext", "a.png.gz", "png"):
        with pytest.raises(ParameterError) as e:
            figure_format(bad, "plot")
        assert str(e.value) == f"{bad}: plot writes FILE.png, FILE.svg or FILE.pdf"


@pytest.mark.parametrize("kind", ["png", "svg", "pdf"])
def test_each_format_is_written_and_the_same_bytes_twice(tmp_path, kind):
    first, second = tmp_path / f"a.{kind}", tmp_path / f"b.{kind.upper()}"
    save(_figure(), first)
    save(_figure(), second)
    data = first.read_bytes()
    assert data.startswith(MAGIC[kind]) and data == second.read_bytes()
    if kind != "png":  # no date and no software stamp in the text formats' metadata
        assert b"CreationDate" not in data and b"<dc:date>" not in data


def test_a_study_s_plot_follows_its_extension_and_a_bad_name_costs_no_run(sp2_archive_file, tmp_path):
    pdf = tmp_path / "h.pdf"
    run = wla("shake", "SDSC-SP2-1998-4.2-cln", "--runs", "2", "--workers", "1", "--plot", pdf,
              archive=sp2_archive_file)
    assert run.status == 0, run.err
    assert pdf.read_bytes().startswith(MAGIC["pdf"])
    bad = tmp_path / "h.jpg"
    refused = wla("shake", "SDSC-SP2-1998-4.2-cln", "--runs", "2", "--workers", "1", "--plot", bad,
                  "--save", tmp_path / "runs.parquet", archive=sp2_archive_file)
    assert refused.one_error_line() == f"wla: {bad}: --plot writes FILE.png, FILE.svg or FILE.pdf"
    assert not bad.exists() and not (tmp_path / "runs.parquet").exists()
    swept = wla("sweep", "SDSC-SP2-1998-4.2-cln", "--grid", "load=1", "--runs", "0", "--plot", tmp_path / "s.bmp",
                "--metric", "wait_mean", archive=sp2_archive_file)
    assert swept.one_error_line() == f"wla: {tmp_path / 's.bmp'}: --plot writes FILE.png, FILE.svg or FILE.pdf"
