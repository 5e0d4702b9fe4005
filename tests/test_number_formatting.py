"""The renderers' number formatting, value by value: each expected string is worked out from the rule
in the docstring of advisor/render/_fmt.py (about three significant figures, thousands separated; a
range as one number when its ends agree; hours, minutes or calendar days by size; eighths of a block).
A wrong constant, comparison or operator there changes one of these strings."""

import pytest

from advisor.render._fmt import bar, hours, md_table, num, pair, run_label, span, usd
from advisor.report import RunSummary


class _Span:
    def __init__(self, low: float, high: float) -> None:
        self.low, self.high = low, high


@pytest.mark.parametrize(
    ("value", "digits", "text"),
    [
        (None, 3, "-"),
        (0, 3, "0"),
        (0.0, 3, "0"),
        (12345.6, 3, "12,346"),  # at or above 10**digits: whole, thousands separated
        (1000.0, 3, "1,000"),  # exactly 10**3: whole
        (999.4, 3, "999"),  # three integer digits: no decimals
        (12.345, 3, "12.3"),  # two integer digits: one decimal
        (1.5, 3, "1.5"),  # one integer digit: two decimals, trailing zero dropped
        (2.0, 3, "2"),  # "2.00" without its zeros and point
        (0.01234, 3, "0.012"),  # under one: `digits` decimals
        (0.5, 3, "0.5"),
        (-1500.0, 3, "-1,500"),  # the size of a negative number is its magnitude
        (-12.345, 3, "-12.3"),
        (12.0, 4, "12"),
        (1234.5, 5, "1,234.5"),  # four integer digits of five: one decimal
        (123.456, 5, "123.46"),
        (99999.0, 5, "99,999"),
        (100000.0, 5, "100,000"),
    ],
)
def test_num_keeps_about_the_asked_significant_figures(value, digits, text):
    assert num(value, digits) == text


def test_num_uses_three_significant_figures_unless_asked():
    assert num(3.14159) == "3.14"
    assert num(314.159) == "314"


@pytest.mark.parametrize(
    ("low", "high", "unit", "text"),
    [
        (2.0, 2.0, "h", "2 h"),  # equal ends: one number
        (1.0, 2.0, "", "1-2"),  # no unit: no trailing space
        (1.0, 2.0, "GB", "1-2 GB"),
        (1_000_000.0, 1_000_000.0005, "", "1,000,000"),  # agree within 1e-9 of the larger end
        (1.0, 1.01, "", "1-1.01"),
        (0.5, 0.5 + 2e-9, "", "0.5-0.5"),  # beyond 1e-9 (of 1 for small ends): two numbers
        (3.0, 2.0, "", "3-2"),  # the order given is kept
    ],
)
def test_pair_is_one_number_when_the_ends_agree(low, high, unit, text):
    assert pair(low, high, unit) == text


def test_span_and_usd_of_a_range_and_of_nothing():
    assert span(None) == "-" and usd(None) == "-" and hours(None) == "-"
    assert span(_Span(1.5, 2.5), "x") == "1.5-2.5 x"
    assert usd(_Span(1200.0, 3400.0)) == "$1,200-3,400"


@pytest.mark.parametrize(
    ("low", "high", "text"),
    [
        (0.25, 0.5, "15-30 min"),  # under an hour: minutes
        (0.5, 0.999, "30-59.9 min"),
        (0.5, 1.0, "0.5-1 h"),  # an hour at the top end: hours
        (1.0, 72.0, "1-72 h"),  # up to three days: hours
        (10.0, 73.0, "0.417-3.04 days"),  # past 72 h: days of 24 h
        (48.0, 96.0, "2-4 days"),
    ],
)
def test_hours_reads_in_minutes_hours_or_days_by_the_upper_end(low, high, text):
    assert hours(_Span(low, high)) == text


@pytest.mark.parametrize(
    ("value", "best", "width", "text"),
    [
        (10.0, 10.0, 5, "█████"),  # the best fills the width
        (5.0, 10.0, 4, "██"),
        (1.0, 8.0, 1, "▏"),  # one eighth of a one-block bar
        (3.0, 8.0, 1, "▍"),  # three eighths
        (7.0, 8.0, 1, "▉"),
        (9.0, 8.0, 1, "█▏"),  # over the best: past the width
        (0.0, 10.0, 5, ""),  # nothing to draw
        (5.0, 0.0, 5, ""),  # no best to scale by
        (-1.0, 10.0, 5, ""),
        (1.0, 400.0, 40, "▏"),  # 1/400 of 40 blocks = 0.8 eighths: rounds to one eighth
        (1.0, 1000.0, 40, ""),  # 0.32 eighths: rounds to nothing
    ],
)
def test_bar_draws_eighths_of_a_block(value, best, width, text):
    assert bar(value, best, width) == text


def test_bar_is_forty_blocks_wide_unless_asked():
    assert bar(3.0, 3.0) == "█" * 40


def test_md_table_aligns_the_first_column_left_and_the_rest_right():
    assert md_table(["a", "b", "c"], [["x", "1", "2"]]) == [
        "| a | b | c |",
        "| :--- | ---: | ---: |",
        "| x | 1 | 2 |",
    ]
    assert md_table(["a", "b"], [], ["r", "l"]) == ["| a | b |", "| ---: | :--- |"]
    assert md_table(["a"], [["p|q"]]) == ["| a |", "| :--- |", "| p\\|q |"]


def test_run_label_names_the_framework_mode_model_and_batch():
    def run(**kw):
        return RunSummary(id="r", framework="pytorch", hardware="cpu", status="ok", **kw)

    assert run_label(run(mode="eager", model="lenet", batch_size=8)) == "pytorch eager lenet bs8"
    assert run_label(run(model="lenet")) == "pytorch lenet"
    assert run_label(run(mode="graph", batch_size=0)) == "pytorch graph"


def test_num_decimals_follow_the_integer_digits_and_ranges_the_relative_tolerance():
    assert num(1.2345) == "1.23"  # one integer digit: two decimals
    assert pair(0.5, 0.5 + 1.5e-9) == "0.5-0.5"  # 1.5e-9 apart: past 1e-9 x max(1, 0.5)
    assert pair(1.0 - 1.5e-9, 1.0) == "1-1"  # the tolerance is 1e-9 of at least 1, not of 2
    assert bar(0.5, 0.5, 2) == "██" and bar(0.5, 1.0, 2) == "█"  # values under 1 still draw


# --- the terminal tables' own formatting helpers ---------------------------------------------------------


def test_rate_text_is_whole_from_a_thousand_and_one_decimal_below():
    from advisor.render.tables import rate_text

    assert rate_text(2216.4) == "2,216"
    assert rate_text(1000.0) == "1,000"
    assert rate_text(999.96) == "1000.0"  # below 1,000 before rounding: one decimal
    assert rate_text(47.25) == "47.2"  # format's round-half-even of the binary value
    assert rate_text(-1500.0) == "-1,500"


def test_check_table_numbers_and_memory_sizes():
    """Sizes read in MiB (psutil over 2**20, NVML, nvidia-smi) are named in binary units: the report's
    GB are 10^9 bytes, and an H200's 143,771 MiB is 140.4 GiB, not 140.4 GB."""
    from advisor.numbers import mib_text
    from advisor.render.tables.check import _num

    assert _num(None) == "-" and _num(3.6) == "4" and _num(2.5, "{:.1f}") == "2.5" and _num(None, none="?") == "?"
    assert mib_text(None) == "-" and mib_text(None, "?") == "?"
    assert mib_text(1023.0) == "1023 MiB"  # under 1 GiB (1,024 MiB): in MiB
    assert mib_text(1024.0) == "1.0 GiB"
    assert mib_text(143771) == "140.4 GiB"


def test_probe_deploy_and_gpt_cells():
    from advisor.render.tables.deploy import _f as deploy_cell
    from advisor.render.tables.gpt import _f as gpt_cell
    from advisor.render.tables.probe import _fmt as probe_cell
    from advisor.render.tables.probe import _rate

    assert deploy_cell(None) == "-" and deploy_cell(1.234) == "1.23"
    assert gpt_cell(None) == "-" and gpt_cell(12345.6) == "12,346" and gpt_cell(None, none="n/a") == "n/a"
    assert probe_cell(None) == "-" and probe_cell(2.25) == "2.2" and probe_cell(2.26) == "2.3"
    assert _rate(None) == "-" and _rate(1234.0) == "1,234" and _rate(12.34) == "12.3"


def test_probe_cv_needs_two_samples():
    from types import SimpleNamespace as NS

    from advisor.render.tables.probe import _cv

    assert _cv(NS(step_time_ms=None, samples=30)) == "-"
    assert _cv(NS(step_time_ms=NS(cv=None, n=30), samples=30)) == "-"
    assert _cv(NS(step_time_ms=NS(cv=0.123, n=30), samples=30)) == "12%"
    assert _cv(NS(step_time_ms=NS(cv=0.123, n=30), samples=1)) == "-"  # one sample has no spread
    assert _cv(NS(step_time_ms=NS(cv=0.123, n=2), samples=None)) == "12%"  # the step count when no samples
    assert _cv(NS(step_time_ms=NS(cv=0.123, n=1), samples=None)) == "-"
    assert _cv(NS(step_time_ms=NS(cv=0.123, n=None), samples=None)) == "-"


def test_scaling_spread_cells():
    from types import SimpleNamespace as NS

    from advisor.render.tables.scaling import _fmt

    assert _fmt(None) == "-"
    assert _fmt(NS(n=1, median=1234.5, min=1.0, max=2.0)) == "1,234"  # one run: no range
    assert _fmt(NS(n=2, median=10.0, min=9.0, max=11.0)) == "10 (9-11)"
    assert _fmt(NS(n=3, median=0.5, min=0.25, max=0.75), scale=1000.0, digits=1) == "500.0 (250.0-750.0)"
    assert _fmt(NS(n=3, median=0.905, min=0.9, max=0.91), pct=True) == "90% (90%-91%)"


def test_scan_effort_hours():
    from advisor.render.tables.scan import _h, _num

    assert _num(2.5) == "2.5" and _num(2.0) == "2" and _num(0.125) == "0.12" and _num(9.999) == "10"
    assert _num(10.0) == "10" and _num(10.4) == "10" and _num(12.6) == "13"  # from 10 up: whole hours
    assert _h((0.5, 12.0)) == "0.5-12 h"
