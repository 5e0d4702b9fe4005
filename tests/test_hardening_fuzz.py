"""A fuzz target per reader (hypothesis, a few hundred inputs each, seconds in all, so they run with the
fast half of the suite in CI): whatever the bytes, each reader returns a value within its budgets or
refuses with its own error (one UsageError line for the advisor's readers), never anything else. And
the one escaping function: whatever the text, the Markdown it gives holds no link, image, raw HTML,
heading or table break."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.errors import UsageError

FUZZ = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
ROOT = Path(__file__).resolve().parents[1]

# JSON-ish text: real JSON values, then cut, spliced and sprinkled with the tokens that broke readers
# before (NaN, 1e400, 30-digit integers, deep brackets, a key twice).
_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=20)
)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=5), inner, max_size=4)),
    max_leaves=20,
)
_tokens = st.sampled_from(
    ["NaN", "1e400", "-Infinity", "9" * 30, "[" * 70, "]" * 70, '"a": 1, "a": 2', "\\ud800", "\x00", "{", '"']
)


@st.composite
def json_text(draw) -> str:
    text = json.dumps(draw(_values))
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(_tokens) + text[at:]
    return text


def _depth(value, level=0) -> int:
    if isinstance(value, dict):
        return max([_depth(v, level + 1) for v in value.values()], default=level + 1)
    if isinstance(value, list):
        return max([_depth(v, level + 1) for v in value], default=level + 1)
    return level


def _finite(value) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return len(str(abs(value))) <= 20
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    return True


@FUZZ
@given(json_text())
def test_parse_json_returns_a_value_within_its_budgets_or_refuses(text):
    from probes.bounded import Refused, parse_json

    try:
        value = parse_json(text.encode("utf-8", "surrogatepass"))
    except (Refused, json.JSONDecodeError):
        return
    assert _depth(value) <= 64 and _finite(value)


@FUZZ
@given(st.binary(max_size=300), st.integers(0, 400))
def test_read_regular_returns_the_bytes_within_the_limit_or_refuses(tmp_path, data, limit):
    from probes.bounded import Refused, read_regular

    path = tmp_path / "f"
    path.write_bytes(data)
    try:
        assert read_regular(path, limit) == data and len(data) <= limit
    except Refused:
        assert len(data) > limit


@FUZZ
@given(json_text())
def test_read_json_returns_a_value_or_one_line(tmp_path, text):
    from advisor.output import read_json

    path = tmp_path / "r.json"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    try:
        read_json(str(path), "expected a result file", "--x")
    except UsageError as exc:
        assert "\n" not in str(exc) and str(path) in str(exc)


_yaml = st.one_of(
    st.text(max_size=200),
    st.lists(
        st.sampled_from(
            [
                "a: 1",
                "a: !!float 1:30",
                "- x",
                "b: &x [1, 2]",
                "c: *x",
                "  d: yes",
                "e: {f: [g, {h: 0o17}]}",
                "a: 2",
                "? [1]",
                "z: !!python/object:os.system x",
                "t: 2026-01-01",
                "\t",
                "k: 1e400",
                "x: " + "[" * 70,
            ]
        ),
        max_size=8,
    ).map("\n".join),
)


@FUZZ
@given(_yaml)
def test_load_yaml_returns_a_value_or_one_line(text):
    from advisor.safe_yaml import load_yaml

    try:
        load_yaml(text, "f.yaml")
    except UsageError as exc:
        assert str(exc).startswith("f.yaml: ") and "\n" not in str(exc)


_toml = st.one_of(
    st.text(max_size=120),
    st.lists(
        st.sampled_from(
            [
                "[probe]",
                "budget = 2.0",
                "budget = -1",
                "threads = 2",
                '"probe.budget" = 1.0',
                "[report]",
                'format = "md"',
                "kb = [1]",
                "x = 1",
                "[[probe]]",
                "budget = nan",
                "a.b.c.d.e.f.g.h.i = 1",
                "threads = " + "9" * 40,
            ]
        ),
        max_size=8,
    ).map("\n".join),
)


@FUZZ
@given(_toml)
def test_the_config_file_gives_settings_or_at_most_ten_lines(tmp_path, text):
    from advisor import config

    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        values = config.load(path)
    except UsageError as exc:
        assert 1 <= len(str(exc).splitlines()) <= config.MAX_PROBLEM_LINES
        return
    assert set(values) <= set(config.BY_KEY)


_PROBES = json.loads((ROOT / "tests" / "fixtures" / "report" / "probes-cpu.json").read_text())


@st.composite
def mutated_probes(draw) -> str:
    """The fixture's probe suite with a few of its values replaced by hostile ones."""
    doc = json.loads(json.dumps(_PROBES))
    run = doc["runs"][draw(st.integers(0, len(doc["runs"]) - 1))]
    for _ in range(draw(st.integers(1, 3))):
        key = draw(st.sampled_from(sorted(run)))
        run[key] = draw(
            st.one_of(
                st.sampled_from(["NaN", "Infinity", "1e999", "9" * 30, "-5", "", "\n# x", [], {}, None, True]),
                _scalars,
            )
        )
    return json.dumps(doc)


@FUZZ
@given(mutated_probes())
def test_a_probe_file_is_a_suite_in_range_or_one_line(tmp_path, text):
    from advisor.commands.report import load_probe_file
    from advisor.limits import first_problem

    path = tmp_path / "p.json"
    path.write_text(text)
    try:
        suite = load_probe_file(str(path))
    except UsageError as exc:
        assert "\n" not in str(exc) and str(path) in str(exc)
        return
    assert first_problem(suite.model_dump(mode="python")) is None


@FUZZ
@given(st.one_of(st.binary(max_size=200), mutated_probes().map(str.encode)))
def test_a_cache_file_is_a_suite_or_nothing(tmp_path, monkeypatch, data):
    from advisor import cache

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = cache._path("probes", "fp")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    got = cache.load_cached_probes("fp")
    assert got is None or got.runs is not None


def _tokens_of(md: str):
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark", {"html": True}).enable("table")
    for tok in parser.parse(md):
        yield tok
        yield from tok.children or []


_hostile_text = st.one_of(
    st.text(max_size=60),
    st.lists(
        st.sampled_from(
            [
                "#",
                "# h",
                "![a](http://x/i.png)",
                "[l](javascript:x)",
                "<img src=x>",
                "<http://x>",
                "`",
                "``",
                "|",
                "\\",
                "\n",
                "- ",
                "1. ",
                ">",
                "===",
                "---",
                "*",
                "**b**",
                "&lt;",
                "]",
                "[",
                "(",
                ")",
                "<!--",
                "<?",
                "x",
            ]
        ),
        max_size=12,
    ).map("".join),
)


@FUZZ
@given(_hostile_text)
def test_for_markdown_gives_text_only_in_a_list_item(text):
    from advisor.sanitize import for_markdown

    md = f"Intro.\n\n- {for_markdown(text)}\n- next\n"
    kinds = [tok.type for tok in _tokens_of(md)]
    assert not {"link_open", "image", "html_inline", "html_block", "heading_open", "blockquote_open", "hr"} & set(kinds)
    assert kinds.count("list_item_open") == 2 and kinds.count("bullet_list_open") == 1, md


@FUZZ
@given(_hostile_text)
def test_md_cell_keeps_the_tables_columns(text):
    from advisor.sanitize import md_cell

    md = f"| a | b |\n| :--- | :--- |\n| {md_cell(text)} | end |\n"
    tokens = list(_tokens_of(md))
    cells = [i for i, tok in enumerate(tokens) if tok.type == "td_open"]
    assert len(cells) == 2, md
    assert tokens[cells[1] + 1].content == "end", md
    assert not {"link_open", "image", "html_inline"} & {tok.type for tok in tokens}


@pytest.mark.parametrize("depth", [63, 64, 65, 990])
def test_the_depth_budget_is_where_it_says(depth):
    from probes.bounded import MAX_JSON_DEPTH, Refused, parse_json

    text = "[" * depth + "]" * depth
    if depth <= MAX_JSON_DEPTH:
        assert _depth(parse_json(text)) == depth
    else:
        with pytest.raises(Refused):
            parse_json(text)
