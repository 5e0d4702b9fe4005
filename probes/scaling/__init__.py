"""Data-parallel scaling probe on the frameworks' own launchers (torchrun, msrun).

Light on purpose: importing this package imports no framework. Entry points:
`probes.scaling.runner.run_scaling(config)`, `probes.scaling.cli` (add_arguments / run_from_args),
`probes.scaling.readiness()` (findings for `advisor check`).
"""


def readiness(python=None) -> list:
    """Findings {severity, code, message, fix} on what torchrun and msrun need on this host."""
    from probes.scaling.readiness_checks import readiness as _readiness

    return _readiness(python)
