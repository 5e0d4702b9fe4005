"""Reviewed equivalent mutants: changes no test can kill because the code behaves the same with them.

Each entry names the mutant by its file, function, operator and text (not its position, which moves when
the file is edited) and says why no behaviour changes. Listed mutants are counted apart, as
"equivalent", never as killed; one that stops matching (the code changed) is simply judged again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from mutation.operators import Mutant

EQUIVALENT = "equivalent"


@dataclass(frozen=True)
class Equivalent:
    path: str
    function: str
    operator: str
    before: str
    after: str
    why: str


REVIEWED: tuple[Equivalent, ...] = ()


def equivalent_why(mutant: Mutant) -> Optional[str]:
    """The reviewed reason this mutant cannot change behaviour, or None."""
    for e in REVIEWED:
        if (e.path, e.function, e.operator, e.before, e.after) == (
            mutant.path,
            mutant.function,
            mutant.operator,
            mutant.before,
            mutant.after,
        ):
            return e.why
    return None
