"""Measuring the host: host facts, accelerators, frameworks and training probes.

Kept light: importing `probes` loads no framework and no UI.
"""
