"""Numbers as a reader reads them: one formatter for the decision model's prose and the renderers (never
scientific notation, thousands separated). Imports nothing of the tool, so every layer may use it."""

from __future__ import annotations

import math

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def num(value: float | None, digits: int = 3) -> str:
    """A number with about `digits` significant figures, thousands separated; a magnitude too small for
    `digits` decimals (it would read "0") as "4.5 × 10⁻⁸"."""
    if value is None:
        return "-"
    if value == 0:
        return "0"
    if not math.isfinite(value):
        return str(value)
    mag = abs(value)
    if mag >= 10**digits:
        return f"{value:,.0f}"
    if mag < 10**-digits:
        exponent = math.floor(math.log10(mag))
        scaled = round(value / 10**exponent, max(0, digits - 1))
        if abs(scaled) >= 10:  # rounding carried into the next power of ten
            scaled, exponent = scaled / 10, exponent + 1
        mantissa = f"{scaled:.{max(0, digits - 1)}f}"
        mantissa = mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa
        return f"{mantissa} × 10{str(exponent).translate(_SUPERSCRIPT)}"
    decimals = max(0, digits - len(str(int(mag))) if mag >= 1 else digits)
    return f"{value:,.{decimals}f}".rstrip("0").rstrip(".") if decimals else f"{value:,.0f}"


def sig(value: float, figures: int = 3) -> str:
    """`value` to `figures` significant figures, as Python's `g` format reads it below a thousand (trailing
    zeros dropped) but never in scientific notation: 19,300 rather than 1.93e+04; a magnitude below a
    millionth as "4.5 × 10⁻⁸"."""
    if value == 0 or not math.isfinite(value):
        return "0" if value == 0 else str(value)
    rounded = float(f"{value:.{figures}g}")
    if abs(rounded) < 1e-6:
        return num(rounded, figures)
    decimals = max(0, figures - 1 - math.floor(math.log10(abs(rounded))))
    text = f"{rounded:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def pct(low: float, high: float) -> str:
    """A fraction range as whole percents: "70%-85%", or one figure when both ends print the same."""
    return f"{low:.0%}" if f"{low:.0%}" == f"{high:.0%}" else f"{low:.0%}-{high:.0%}"


def range_text(low: float, high: float, unit: str = "", prefix: str = "") -> str:
    """'1.37-5.47', or one value when both ends read the same ('39,011', not '39,011-39,011'): whole
    numbers from 100, three significant figures below."""

    def end(x: float) -> str:
        return f"{x:,.0f}" if abs(x) >= 100 else sig(x)

    a, b = end(low), end(high)
    return f"{prefix}{a}" + ("" if a == b else f"-{b}") + (f" {unit}" if unit else "")


def mib_text(mib: float | None, missing: str = "-") -> str:
    """A size read in MiB (psutil's bytes over 2**20, NVML's and nvidia-smi's memory): "615 MiB" or
    "140.4 GiB". Binary units named as such, since the report's GB are 10^9 bytes."""
    if mib is None:
        return missing
    return f"{mib / 1024:.1f} GiB" if mib >= 1024 else f"{mib:.0f} MiB"
