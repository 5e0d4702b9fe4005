"""The scan's work is bounded on any tree: patterns linear in the text they read (one long token in a file
the 2 MB cap allows stalled the scan for hours), a budget on the total it reads, hard links read once,
and a walk that is no recursion (a tree 1,500 folders deep)."""

import os
import subprocess
import sys

from advisor.scan import files, loads_pretrained, native, scan_path

# One long token per file, at the per-file cap: the old patterns backtracked over it from every start
# position (a 60 KB file took 30-64 s; this size, hours). Each line below is one pattern that did.
LONG = 2 * 1024 * 1024 - 4096
HOSTILE = {
    # a CUDA kernel whose name runs on with no parenthesis: the kernel-name pattern
    "k.cu": "__global__ " + "a" * LONG,
    # a build script naming a path-like token that is no native file: the native-file-name pattern
    "setup.py": "from torch.utils.cpp_extension import load\nx = '" + "a/" * (LONG // 2) + "'\n",
    # a source of URLs that never end in a checkpoint: the pretrained-weights pattern
    "urls.py": "import torch\nx = '" + "http://" * (LONG // 7) + "'\n",
    # unclosed launch bounds along one kernel line
    "b.cu": "__global__ void k" + "__launch_bounds__(" * (LONG // 18) + "\n",
}


def test_hostile_tokens_at_the_size_cap_do_not_stall_the_scan(tmp_path):
    """Run as the CLI in a child process: on the old patterns it never finished (the timeout is a hang
    guard two orders of magnitude above what the scan needs, not a speed assertion)."""
    for name, text in HOSTILE.items():
        (tmp_path / name).write_text(text)
    run = subprocess.run(
        [sys.executable, "-m", "advisor", "scan", str(tmp_path), "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert '"extension_sources"' in run.stdout


def test_the_linear_readers_find_what_the_patterns_found():
    assert native.native_stems(b'load(sources=["csrc/roi_align_cuda.cu", "nms.cpp"])') == ["roi_align_cuda", "nms"]
    assert native.native_stems(b"ops.Custom('./build/add.so:Add')") == ["add"]
    assert native.native_stems(b"a.cu/b.cpp x.txt") == ["b"]  # the last native name of a token, its stem
    assert native._kernel_name("__global__ void __launch_bounds__(256) add_kernel(float* x) {") == "add_kernel"
    assert native._kernel_name("__global__ void k <<<") == "?"
    assert native._kernel_name("__global__ void scale (float* x)") == "scale"
    assert loads_pretrained(b"url = 'https://dl.fbaipublicfiles.com/x/model_final.pth'")
    assert loads_pretrained(b"m = AutoModel.from_pretrained(name)")
    assert not loads_pretrained(b"see https://github.com/org/repo for details")


def _deep(root, levels):
    here = os.getcwd()
    try:
        os.chdir(root)
        for _ in range(levels):
            os.mkdir("a")
            os.chdir("a")
        with open("m.py", "w") as fh:
            fh.write("import torch\nx = torch.zeros(3)\n")
    finally:
        os.chdir(here)


def _remove_deep(root, levels):
    """shutil.rmtree (and pytest's own clean-up of tmp_path) recurse once per level: undo it by hand."""
    here = os.getcwd()
    try:
        os.chdir(root)
        for _ in range(levels):
            os.chdir("a")
        os.remove("m.py")
        for _ in range(levels):
            os.chdir("..")
            os.rmdir("a")
    finally:
        os.chdir(here)


def test_a_tree_1500_folders_deep_is_walked_without_recursion(tmp_path):
    _deep(tmp_path, 1500)
    try:
        result = scan_path(tmp_path)
    finally:
        _remove_deep(tmp_path, 1500)
    assert result.python_files == 1
    assert any(a.name == "torch.zeros" for a in result.apis)


def test_hard_links_to_one_file_are_read_once(tmp_path):
    first = tmp_path / "a_model.py"
    first.write_text("import torch\nx = torch.zeros(3)\n")
    for i in range(9):
        os.link(first, tmp_path / f"copy_{i}.py")
    result = scan_path(tmp_path)
    assert result.python_files == 1
    links = [s for s in result.skipped if s.reason.startswith("hard link to a_model.py")]
    assert len(links) == 9


def test_the_total_read_is_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(files, "MAX_TOTAL_BYTES", 100)
    for i in range(5):
        (tmp_path / f"m{i}.py").write_text("import torch\nx = torch.zeros(3)\n" + "# pad\n" * 10)
    root, found = files.collect(tmp_path)
    assert len(found.python) == 2  # 86 bytes each: the second passes the budget, the third is not read
    assert found.skipped[-1].file == "m2.py"
    assert "rest not scanned" in found.skipped[-1].reason
    result = scan_path(tmp_path)
    assert any("stopped at its budget" in r for r in result.risk_reasons)


def test_the_walk_keeps_depth_first_name_order(tmp_path):
    for d in ("b", "a/z", "a/y"):
        (tmp_path / d).mkdir(parents=True, exist_ok=True)
    for f in ("b/m.py", "a/z/m.py", "a/y/m.py", "a/m.py", "top.py"):
        (tmp_path / f).write_text("x = 1\n")
    _, found = files.collect(tmp_path)
    assert [s.rel for s in found.python] == ["top.py", "a/m.py", "a/y/m.py", "a/z/m.py", "b/m.py"]
