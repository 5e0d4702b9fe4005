"""Hardening of what the tool reads and writes, driven as a user would: a real subprocess of the CLI,
real files, FIFOs and device nodes made inside a temp dir (never the system's own)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = str(ROOT / "examples" / "prototype-then-ascend.yaml")


def advisor(*argv: str, env: dict | None = None, stdout=subprocess.PIPE, timeout: float = 120):
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "advisor", *argv],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        env=full_env,
        timeout=timeout,
        cwd=ROOT,
    )


def one_line_error(proc) -> str:
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    return lines[0]


# --- -o never replaces what is not a regular file -----------------------------------------------


def test_output_to_a_character_device_writes_to_it_and_leaves_it_a_device(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("mknod of a character device needs root")
    null = tmp_path / "null"
    os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # the same device as /dev/null
    proc = advisor("report", EXAMPLE, "--json", "-o", str(null))
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISCHR(os.stat(null).st_mode)


def test_output_to_a_full_device_is_one_line_exit_2(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("mknod of a character device needs root")
    full = tmp_path / "full"
    os.mknod(full, stat.S_IFCHR | 0o666, os.makedev(1, 7))  # the same device as /dev/full
    line = one_line_error(advisor("report", EXAMPLE, "--json", "-o", str(full)))
    assert str(full) in line and "cannot write" in line
    assert stat.S_ISCHR(os.stat(full).st_mode)


def test_output_to_a_fifo_is_written_in_place(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    proc = advisor("report", EXAMPLE, "--json", "-o", str(fifo))
    reader.join(timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert json.loads(got[0])["schema_version"]


def test_output_through_a_symlink_keeps_the_link(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    proc = advisor("report", EXAMPLE, "--json", "-o", str(link))
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink()
    assert json.loads(real.read_text())["schema_version"]


def test_an_overwritten_file_keeps_its_permissions(tmp_path):
    out = tmp_path / "private.json"
    out.write_text("{}")
    out.chmod(0o600)
    proc = advisor("report", EXAMPLE, "--json", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert stat.S_IMODE(out.stat().st_mode) == 0o600


def test_output_with_a_trailing_slash_is_a_folder_name_not_a_file(tmp_path):
    line = one_line_error(advisor("report", EXAMPLE, "--json", "-o", str(tmp_path / "newdir") + "/"))
    assert "folder" in line
    assert not (tmp_path / "newdir").exists()


def test_a_socket_as_output_is_refused(tmp_path):
    import socket

    path = tmp_path / "sock"
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(path))
        line = one_line_error(advisor("report", EXAMPLE, "--json", "-o", str(path)))
        assert "not a regular file" in line
        assert stat.S_ISSOCK(os.stat(path).st_mode)
    finally:
        sock.close()


def test_a_closed_stdout_is_one_line_exit_2():
    proc = subprocess.run(
        [sys.executable, "-m", "advisor", "report", EXAMPLE, "--json"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        preexec_fn=lambda: os.close(1),
        timeout=120,
    )
    one_line_error(proc)


def test_an_ascii_only_stdout_is_one_line_exit_2_not_a_traceback():
    proc = advisor("report", EXAMPLE, "--markdown", env={"PYTHONIOENCODING": "ascii"})
    if proc.returncode == 0:  # the document happened to be pure ASCII: nothing to refuse
        proc.stdout.encode("ascii")
        return
    assert "PYTHONIOENCODING" in one_line_error(proc)


# --- bounded, strict reads ----------------------------------------------------------------------


ALIAS_BOMB = (
    "\n".join(
        ['a: &a ["x","x","x","x","x","x","x","x","x","x"]']
        + [f"{chr(98 + i)}: &{chr(98 + i)} [" + ",".join([f"*{chr(97 + i)}"] * 10) + "]" for i in range(8)]
    )
    + "\n"
)


@pytest.mark.parametrize(
    "content, needle",
    [
        (ALIAS_BOMB, "aliases expand"),
        ("a: " + "[" * 3000 + "]" * 3000 + "\n", "nested"),
        ("name: x\nteam:\n  size: " + "9" * 5000 + "\n", "invalid value"),
    ],
)
def test_hostile_yaml_is_refused_quickly_with_a_short_line(tmp_path, content, needle):
    path = tmp_path / "req.yaml"
    path.write_text(content)
    out = tmp_path / "out.json"
    line = one_line_error(advisor("report", str(path), "--json", "-o", str(out), timeout=30))
    assert needle in line and len(line) < 400
    assert not out.exists()


def test_a_device_given_as_input_is_not_read(tmp_path):
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    for argv in (
        ["report", "/dev/zero"],
        ["report", EXAMPLE, "--probes", "/dev/zero"],
        ["report", EXAMPLE, "--scaling", "/dev/zero"],
        ["compare", "/dev/zero", "/dev/zero"],
    ):
        line = one_line_error(advisor(*argv, timeout=30))
        assert "/dev/zero" in line and "not a regular file" in line


def test_nan_in_a_probe_file_is_bad_input_not_invalid_json_out(tmp_path):
    probes = tmp_path / "probes.json"
    probes.write_text(
        '{"schema_version": "1.0", "runs": [{"id": "x", "framework": "pytorch", "mode": "eager", '
        '"model": "lenet", "batch_size": 32, "status": "ok", "images_per_second": NaN}]}'
    )
    out = tmp_path / "out.json"
    line = one_line_error(advisor("report", EXAMPLE, "--probes", str(probes), "--json", "-o", str(out)))
    assert "NaN" in line
    assert not out.exists()


def test_deeply_nested_json_is_bad_input(tmp_path):
    probes = tmp_path / "probes.json"
    probes.write_text("[" * 100_000 + "]" * 100_000)
    one_line_error(advisor("report", EXAMPLE, "--probes", str(probes), "--json"))


# --- terminal escapes ---------------------------------------------------------------------------


def test_escape_sequences_in_a_requirement_name_never_reach_the_output(tmp_path):
    import yaml

    req = yaml.safe_load(Path(EXAMPLE).read_text())
    req["name"] = "team \x1b]0;pwned\x07\x1b[2J<script>x</script>"
    path = tmp_path / "req.yaml"
    path.write_text(yaml.safe_dump(req))
    for fmt in ("--table", "--markdown", "--json"):
        proc = advisor("report", str(path), fmt)
        assert proc.returncode == 0, proc.stderr
        assert "\x1b" not in proc.stdout and "\x07" not in proc.stdout


def test_sanitize_functions():
    from advisor.sanitize import for_html, for_markdown, for_terminal, one_line

    hostile = "a\x1b]0;t\x07b\x1b[2Jc\x9bd\x00e\nf"
    assert for_terminal(hostile) == "abcde\nf"
    assert one_line("x\n# heading\ty") == "x # heading y"
    # one line, and what could open HTML or a link escaped (a table writer escapes `|` in its cells)
    assert for_markdown("a|b\n# h <script>") == "a|b # h \\<script>"
    assert for_markdown("# h [l](u)") == "\\# h \\[l\\](u)"
    assert for_html("<script>&") == "&lt;script&gt;&amp;"


def test_a_hostile_name_cannot_start_markdown_or_html(tmp_path):
    import yaml

    req = yaml.safe_load(Path(EXAMPLE).read_text())
    req["name"] = "team\n# injected heading <script>alert(1)</script> | cell"
    path = tmp_path / "req.yaml"
    path.write_text(yaml.safe_dump(req))
    md = advisor("report", str(path), "--markdown")
    assert md.returncode == 0, md.stderr
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark", {"html": True}).parse(md.stdout)
    inline = [child for tok in tokens for child in tok.children or []]
    assert not [t for t in [*tokens, *inline] if t.type in ("html_inline", "html_block")]
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert not [h for h in headings if h.startswith("injected")] and "\n# injected" not in md.stdout
    html = advisor("report", str(path), "--html")
    assert html.returncode == 0, html.stderr
    assert "<script>alert" not in html.stdout
