"""The parsed-knowledge-base cache: a second run reads an earlier run's parse instead of the YAML, any
change to a file is a miss, and a cache that cannot be written or holds something else is never an
error (the conftest gives every test its own empty XDG_CACHE_HOME)."""

from __future__ import annotations

import datetime as dt
import os

import pytest

import knowledge
from knowledge import loader, parse_cache


@pytest.fixture(autouse=True)
def _fresh_process_caches():
    loader.clear_cache()
    loader._parse.cache_clear()
    yield
    loader.clear_cache()
    loader._parse.cache_clear()


def _slots() -> list:
    folder = parse_cache._slot("x").parent
    return sorted(folder.iterdir()) if folder.is_dir() else []


def _no_yaml(monkeypatch) -> None:
    def refuse(label, text, problems):
        raise AssertionError(f"{label} parsed again although the cache holds it")

    monkeypatch.setattr(loader, "_parse_uncached", refuse)


def test_second_load_reads_the_cache_not_the_yaml(monkeypatch):
    first = knowledge.load()
    bundled = loader._bundled_files()
    assert len(_slots()) == len(bundled)  # one slot per file read
    loader.clear_cache()
    loader._parse.cache_clear()  # a new process, as far as parsing goes
    _no_yaml(monkeypatch)
    second = knowledge.load()
    assert second.model_dump() == first.model_dump()
    assert second.version == first.version


def test_a_changed_file_is_parsed_again(tmp_path, monkeypatch):
    override = tmp_path / "costs.yaml"
    override.write_text("- id: engineer-day\n  note: first\n")
    knowledge.load(extra_dirs=[tmp_path])
    override.write_text("- id: engineer-day\n  note: second\n")
    loader.clear_cache()
    loader._parse.cache_clear()
    parsed = []
    real = loader._parse_uncached
    monkeypatch.setattr(loader, "_parse_uncached", lambda label, text, p: parsed.append(label) or real(label, text, p))
    kb = knowledge.load(extra_dirs=[tmp_path])
    assert parsed == [str(override)]  # the bundled files came from the cache, the edited one did not
    assert next(c for c in kb.costs if c.id == "engineer-day").note == "second"


def test_problems_come_back_from_the_cache(tmp_path, monkeypatch):
    (tmp_path / "costs.yaml").write_text("- id: engineer-day\n  usd: [unclosed\n")
    before = loader.check([tmp_path], use_env=False)
    loader._parse.cache_clear()
    _no_yaml(monkeypatch)
    assert loader.check([tmp_path], use_env=False) == before
    assert any("not valid YAML" in p.message for p in before)


def test_an_unwritable_cache_is_no_error(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    kb = knowledge.load()
    assert kb.accelerators
    assert blocker.read_text() == "a file where the cache folder would be"


@pytest.mark.parametrize(
    "content",
    [
        b"not json",
        b'{"key": "0000", "entries": [], "problems": []}',  # another file's (or parser's) key
        b"[1, 2]",
    ],
)
def test_a_foreign_cache_file_is_a_miss(content):
    label, text = "knowledge/data/x.yaml", b"accelerators: []\n"
    slot = parse_cache._slot(label)
    slot.parent.mkdir(parents=True, exist_ok=True)
    slot.write_bytes(content)
    assert parse_cache.load(label, text) is None


def test_a_right_key_with_the_wrong_shape_is_a_miss():
    label, text = "knowledge/data/x.yaml", b"accelerators: []\n"
    slot = parse_cache._slot(label)
    slot.parent.mkdir(parents=True, exist_ok=True)
    key = parse_cache._key(label, text)
    slot.write_text(f'{{"key": "{key}", "entries": [["accelerators", {{"id": 3}}]], "problems": []}}')
    assert parse_cache.load(label, text) is None


def test_dates_come_back_as_dates_and_what_json_cannot_hold_is_not_cached():
    label, text = "knowledge/data/y.yaml", b"anything"
    entries = [("prices", {"id": "a", "observed": dt.date(2026, 11, 2), "usd": 1, "share": 1.0})]
    parse_cache.store(label, text, entries, [])
    back, problems = parse_cache.load(label, text)
    assert back == entries and problems == []
    assert type(back[0][1]["usd"]) is int and type(back[0][1]["share"]) is float

    other = "knowledge/data/z.yaml"
    parse_cache.store(other, text, [("prices", {"id": "b", "at": dt.datetime(2026, 1, 1, 12)})], [])
    parse_cache.store(other, text, [("prices", {"id": "c", 1: "an integer key"})], [])
    parse_cache.store(other, text, [("prices", {"id": "d", "x": {"$date": "2026-01-01"}})], [])
    assert parse_cache.load(other, text) is None


def test_the_write_is_atomic_and_leaves_no_temp_file():
    parse_cache.store("knowledge/data/w.yaml", b"t", [("costs", {"id": "w"})], [])
    names = [p.name for p in _slots()]
    assert len(names) == 1 and not any(n.startswith(".") for n in names)
    assert os.path.getsize(_slots()[0]) > 0


def test_the_key_names_the_parser_code():
    assert "advisor.safe_yaml" in parse_cache.PARSER_MODULES and "knowledge.loader" in parse_cache.PARSER_MODULES
    assert parse_cache._key("a", b"x") != parse_cache._key("a", b"y") != parse_cache._key("b", b"y")
