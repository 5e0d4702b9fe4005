"""Judging the host: findings from the facts `probes.check` gathers (host.py), launcher readiness
(scaling.py) and multi-host readiness (multinode.py)."""
