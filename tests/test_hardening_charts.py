"""`report --markdown -o`: charts beside a regular file only, and never without the document."""

from __future__ import annotations

import errno
import os
import threading
from pathlib import Path

from advisor.cli import main

EXAMPLE = str(Path(__file__).resolve().parents[1] / "examples" / "prototype-then-ascend.yaml")


def _report(out, capsys, *extra):
    code = main(["report", EXAMPLE, "--no-cache", "--markdown", "-o", str(out), *extra])
    return code, capsys.readouterr().err


def test_a_regular_file_gets_its_charts_beside_it(tmp_path, capsys):
    code, err = _report(tmp_path / "review.md", capsys)
    assert code == 0, err
    svgs = sorted(p.name for p in tmp_path.glob("*.svg"))
    assert svgs and all(name.startswith("review.") for name in svgs)
    text = (tmp_path / "review.md").read_text()
    assert all(name in text for name in svgs)  # linked, and every linked file exists
    assert not list(tmp_path.glob(".advisor-*"))  # no staged temp file left


def test_a_character_device_gets_no_charts_beside_it(tmp_path, capsys):
    link = tmp_path / "null.md"
    link.symlink_to("/dev/null")
    code, err = _report(link, capsys)
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null.md"]


def test_a_fifo_gets_the_document_and_no_charts(tmp_path, capsys):
    fifo = tmp_path / "review.md"
    os.mkfifo(fifo)
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    code, err = _report(fifo, capsys)
    reader.join(timeout=60)
    assert code == 0, err
    assert got and got[0].startswith("#") and ".svg" not in got[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["review.md"]


def test_a_failed_document_leaves_no_charts(tmp_path, capsys, monkeypatch):
    out = tmp_path / "review.md"
    real_replace = os.replace

    def replace(src, dst, *a, **k):
        if str(dst) == str(out):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_replace(src, dst, *a, **k)

    monkeypatch.setattr(os, "replace", replace)
    code, err = _report(out, capsys)
    assert code == 2 and "No space left on device" in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_charts_are_renamed_into_place_only_after_the_document(tmp_path, capsys, monkeypatch):
    out = tmp_path / "review.md"
    order: list[str] = []
    real_replace = os.replace

    def replace(src, dst, *a, **k):
        if Path(dst).parent == tmp_path:  # not the tool's own cache (the ONNX Runtime providers list)
            order.append(Path(dst).name)
        return real_replace(src, dst, *a, **k)

    monkeypatch.setattr(os, "replace", replace)
    code, err = _report(out, capsys)
    assert code == 0, err
    assert order[0] == "review.md" and all(name.endswith(".svg") for name in order[1:]) and len(order) > 1
