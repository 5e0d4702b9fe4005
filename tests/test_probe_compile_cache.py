"""`advisor probe --no-cache`: the throw-away torch.compile folder is made for the run and never outlives it."""

from __future__ import annotations

import tempfile

import pytest

from advisor.cli import main


@pytest.fixture
def temp_root(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where mkdtemp puts the throw-away cache
    return tmp_path


def _inductor_folders(root):
    return sorted(p.name for p in root.glob("advisor-inductor-*"))


@pytest.mark.parametrize(
    "argv",
    [
        ["probe", "--models", "gpt", "--gpt-hidden", "100", "--gpt-heads", "3", "--no-cache"],  # heads must divide
        ["probe", "--models", "lenet", "--frameworks", "pytorch", "--budget", "-1", "--no-cache"],
    ],
)
def test_a_refused_flag_leaves_no_throw_away_cache(temp_root, capsys, argv):
    assert main(argv) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert _inductor_folders(temp_root) == []


def test_the_throw_away_cache_is_used_for_the_run_and_removed_after(temp_root, monkeypatch):
    from advisor.commands import probe_common

    seen = []
    with probe_common.compile_cache(_Config(), no_cache=True) as config:
        seen.append(config.compile_cache_dir)
        assert _inductor_folders(temp_root) == [config.compile_cache_dir.rsplit("/", 1)[1]]
    assert seen and _inductor_folders(temp_root) == []
    with pytest.raises(RuntimeError), probe_common.compile_cache(_Config(), no_cache=True):
        raise RuntimeError("the framework crashed")  # removed however the run ends
    assert _inductor_folders(temp_root) == []


def test_without_no_cache_the_users_compile_cache_is_kept(temp_root):
    from advisor.cache import compile_cache_dir
    from advisor.commands import probe_common

    with probe_common.compile_cache(_Config(), no_cache=False) as config:
        assert config.compile_cache_dir == str(compile_cache_dir())
    assert _inductor_folders(temp_root) == []


def _Config():  # noqa: N802 (the probe's own config class)
    from probes.training.models import ProbeConfig

    return ProbeConfig(frameworks=["pytorch"], models=["lenet"], modes=["eager"])
