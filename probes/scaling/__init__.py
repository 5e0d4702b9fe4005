"""Data-parallel scaling probe on the frameworks' own launchers (torchrun, msrun).

Light on purpose: importing this package imports no framework. Entry points:
`probes.scaling.runner.run_scaling(config)`, `probes.scaling.facts.launcher_facts()` (what the
launchers need, judged by advisor/check_scaling.py); the command line is advisor/commands/scaling.py.
"""
