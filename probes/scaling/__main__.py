"""`python -m probes.scaling`: the scaling probe without the advisor CLI."""

import sys

from probes.scaling.cli import main

sys.exit(main())
