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
