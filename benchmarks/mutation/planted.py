"""Named planted bugs: each one a bug someone could really write, with the tests that claim to catch it.

Applied as text to a copy of the tree and run with pytest there (a child process, so code read from disk
and subprocesses a test starts see the bug too). The generated operator mutants (operators.py) cover the
arithmetic broadly; these cover what an operator cannot plant: a dropped writer, a lost field, a wrong
index, a changed unit.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Planted:
    name: str
    path: str  # file in the tree
    old: str  # text replaced (must occur exactly once)
    new: str
    tests: tuple[str, ...]  # pytest arguments: files, -k selections
    why: str


PLANTED = (
    Planted(
        "writer-plain-open",
        "advisor/output.py",
        '        with os.fdopen(fd, "w", encoding="utf-8", errors="replace") as fh:\n'
        "            fh.write(text)\n"
        "        os.chmod(tmp, mode)\n"
        "        os.replace(tmp, target)\n",
        "        os.close(fd)\n"
        "        os.unlink(tmp)\n"
        '        with open(target, "w", encoding="utf-8") as fh:\n'
        "            fh.write(text)\n",
        ("tests/test_hardening_suite.py", "-k", "midway or half_written"),
        "-o written in place: a failure mid-write truncates the old file",
    ),
    Planted(
        "cache-failure-loses-o",
        "advisor/commands/probe_common.py",
        "        except (OSError, UsageError) as exc:  # ENOSPC, EROFS, a file where the cache folder goes",
        "        except OSError as exc:  # ENOSPC, EROFS, a file where the cache folder goes",
        ("tests/test_hardening_keep.py", "-k", "enospc or broken_cache_still"),
        "write_atomic's UsageError from the cache escapes (the issue's lost measurement)",
    ),
    Planted(
        "data-label-range-dropped",
        "probes/training/data.py",
        "    if labels.size and (int(labels.min()) < 0",
        "    if False and (int(labels.min()) < 0",
        ("tests/test_hardening_data.py",),
        "labels 99/255 accepted; the run fails later",
    ),
    Planted(
        "data-pickle-structure-unchecked",
        "probes/training/data.py",
        "    if not isinstance(data, np.ndarray):\n",
        "    if False:\n",
        ("tests/test_hardening_data.py",),
        "a nested list as 'data' reaches NumPy (the 317-byte bomb)",
    ),
    Planted(
        "yaml-duplicate-keys-allowed",
        "advisor/safe_yaml.py",
        "        if duplicate:\n",
        "        if False:\n",
        ("tests/test_bad_input_catalogue.py", "tests/test_hardening_medium.py", "-k", "duplicate"),
        "a duplicated key silently keeps the last value",
    ),
    Planted(
        "limits-zero-memory-allowed",
        "advisor/limits.py",
        '"usable_memory_gb": Limit(0, 1e5, "GB", low_open=True)',
        '"usable_memory_gb": Limit(0, 1e5, "GB")',
        ("tests/test_hardening_medium.py", "-k", "kb_overrides"),
        "usable_memory_gb: 0 accepted (a division by zero later)",
    ),
    Planted(
        "writer-temp-left-on-failure",
        "advisor/output.py",
        "        try:\n            os.unlink(tmp)\n        except OSError:\n            pass\n        if isinstance(exc, OSError):",
        "        try:\n            pass\n        except OSError:\n            pass\n        if isinstance(exc, OSError):",
        ("tests/test_hardening_suite.py", "-k", "midway or half_written"),
        "a failed -o leaves its hidden temp file beside the target (a stray partial file)",
    ),
    Planted(
        "writer-fallback-not-written",
        "advisor/output.py",
        "            return str(write_atomic(Path(folder) / name, text))",
        "            return str(Path(folder) / name)",
        ("tests/test_hardening_keep.py", "-k", "fallback"),
        "the named fallback is announced but never written: the measurement is lost",
    ),
    Planted(
        "to-json-allows-nan",
        "advisor/output.py",
        "ensure_ascii=False, allow_nan=False)",
        "ensure_ascii=False, allow_nan=True)",
        ("tests/test_hardening_medium.py", "-k", "finite or kb_overrides"),
        "Infinity written into --json output (the tool's own compare refuses the file)",
    ),
    Planted(
        "json-reader-accepts-nan",
        "probes/bounded.py",
        "raw, parse_constant=_no_constant, parse_float=_float",
        "raw, parse_float=_float",
        ("tests/test_bad_input_catalogue.py", "tests/test_hardening_heldout.py", "-k", "nan or infinity or non_finite"),
        "NaN / Infinity in a result file read as numbers",
    ),
    Planted(
        "json-reader-unbounded",
        "advisor/output.py",
        "MAX_JSON_BYTES = 32 * 1024 * 1024",
        "MAX_JSON_BYTES = 32 * 1024 * 1024 * 1024",
        ("tests/test_planted_bugs.py", "-k", "32_mb"),
        "a 1 GB result file read whole into memory",
    ),
    Planted(
        "terminal-escapes-kept",
        "advisor/sanitize.py",
        '    return _SURROGATES.sub("\\ufffd", _CONTROLS.sub("", _ESCAPES.sub("", text)))',
        '    return _SURROGATES.sub("\\ufffd", text)',
        ("tests/test_hardening_io.py", "tests/test_hardening_heldout.py", "-k", "escape"),
        "terminal escapes from YAML keys, ids and file names reach the error line and the documents",
    ),
    Planted(
        "limits-throughput-unbounded",
        "advisor/limits.py",
        '"images_per_second": Limit(0, 1e9, "images/s")',
        '"images_per_second": Limit(0, 1e300, "images/s")',
        ("tests/test_hardening_medium.py", "-k", "absurd_probe"),
        "throughput 1e300 accepted as a measurement",
    ),
    Planted(
        "data-idx-header-trusted",
        "probes/training/data.py",
        "            if dims[0] * item > MAX_FILE_BYTES:",
        "            if False:",
        ("tests/test_hardening_data.py",),
        "an idx header claiming gigabytes allocated before a byte is read",
    ),
    Planted(
        "decision-adam-bytes",
        "advisor/decision/memory.py",
        "    return StateBytes(2.0, 2.0, 4.0 + 4.0 * moments, 2.0 if frozen is None else frozen)",
        "    return StateBytes(2.0, 2.0, 2.0 + 4.0 * moments, 2.0 if frozen is None else frozen)",
        ("tests/test_workload_formulas.py", "-k", "sharding or deepspeed"),
        "mixed-precision Adam at 14 bytes per parameter instead of 16",
    ),
    Planted(
        "decision-power-budget-x10",
        "advisor/decision/tco.py",
        "        per_kw = proj.devices / 1000 * server",
        "        per_kw = proj.devices / 100 * server",
        ("tests/test_decision_model.py", "-k", "tco"),
        "the power budget ten times too large",
    ),
    # The six a review planted that the suite missed (the network one at both places it is read), each
    # now killed by a test that names it.
    Planted(
        "network-ignored",
        "advisor/decision/communication.py",
        '        bw = k["NETWORK_ROCE_IB_GBS"] if req.hardware.network != "ethernet" else k["NETWORK_ETHERNET_GBS"]\n',
        '        bw = k["NETWORK_ROCE_IB_GBS"]\n',
        ("tests/test_workload_formulas.py", "-k", "hardware_network"),
        "hardware.network ignored in the communication check: Ethernet read as RoCE/InfiniBand",
    ),
    Planted(
        "network-curves-ignored",
        "advisor/decision/communication.py",
        "    network = req.hardware.network\n",
        "    network = None\n",
        ("tests/test_planted_bugs.py", "-k", "scaling_curve"),
        "hardware.network ignored by the scaling curve: every network class spanned",
    ),
    Planted(
        "cache-written-in-place",
        "advisor/cache.py",
        "    write_atomic(path, text, in_place=False)\n",
        '    path.write_text(text, encoding="utf-8")\n',
        ("tests/test_cache.py", "-k", "atomically"),
        "the cache written in place: a write that fails half-way loses the last measurement",
    ),
    Planted(
        "probe-drops-peak-memory",
        "probes/training/runner.py",
        '        res.pop("ci95", None)',
        '        res.pop("peak_memory_mb", None)\n        res.pop("ci95", None)',
        ("tests/test_planted_bugs.py", "-k", "peak_memory"),
        "the worker's peak_memory_mb dropped on the way into the probe run",
    ),
    Planted(
        "repeat-keeps-best-interval",
        "probes/training/runner.py",
        "        body = pool[(len(pool) - 1) // 2].model_copy(deep=True)",
        "        body = pool[-1].model_copy(deep=True)",
        ("tests/test_planted_bugs.py", "-k", "repeat"),
        "a merged --repeat shows the median's throughput with the best repeat's interval",
    ),
    Planted(
        "days-as-hours-over-8",
        "advisor/render/_fmt.py",
        '        return pair(s.low / 24, s.high / 24, "days")',
        '        return pair(s.low / 8, s.high / 8, "days")',
        ("tests/test_planted_bugs.py", "-k", "days"),
        "days printed as hours / 8 (working days, not calendar days)",
    ),
    Planted(
        "flash-attention-ignored",
        "advisor/decision/memory.py",
        '        act = transformer_activations(shape, 1, 1, m.recompute or "none", m.flash_attention)\n',
        '        act = transformer_activations(shape, 1, 1, m.recompute or "none", False)\n',
        ("tests/test_workload_formulas.py", "-k", "flash_attention"),
        "model.flash_attention ignored: the attention score term stays in the activations per sample",
    ),
    Planted(
        "flash-attention-ignored-by-layouts",
        "advisor/decision/memory.py",
        "        flash_attention=m.flash_attention,\n",
        "        flash_attention=False,\n",
        ("tests/test_planted_bugs.py", "-k", "flash_attention"),
        "model.flash_attention ignored by the layout search: a split the fused kernel makes needless",
    ),
)
