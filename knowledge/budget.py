"""What the knowledge-base override folders may hold in all (--kb DIR, ADVISOR_KB_DIR, the config's
report.kb): the work budget of reading them, checked from the folders' listings before a file is parsed.

Each file is bounded on its own (knowledge.loader.MAX_FILE_BYTES), but four files of 4 MB took 48 s and
1.06 GB to parse. The bundled knowledge base is ~330 KB in 20 files; an override is a few entries.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Union

from knowledge.errors import KnowledgeError

# Six times the whole bundled knowledge base, in every override folder together: parsing it costs
# seconds, not minutes (YAML here parses at roughly 1 MB per 3 s of CPU).
MAX_OVERRIDE_BYTES = 2 * 1024 * 1024
# Ten times the bundled base's file count: a folder of thousands of tiny files is a mistake too.
MAX_OVERRIDE_FILES = 200


def check(folders: Iterable[Union[str, "os.PathLike[str]"]]) -> None:
    """Raise KnowledgeError (one line naming the folder) when the YAML files of `folders` together pass
    the budget. A folder that cannot be listed is left to the loader, which says what is wrong with it."""
    total, count = 0, 0
    for folder in folders:
        try:
            names = sorted(Path(folder).iterdir())
        except (OSError, ValueError):
            continue
        for path in names:
            if path.suffix not in (".yaml", ".yml"):
                continue
            try:
                st = os.stat(path)
            except OSError:
                continue  # a broken link: the loader names it
            if not stat.S_ISREG(st.st_mode):
                continue
            total += st.st_size
            count += 1
            if count > MAX_OVERRIDE_FILES:
                raise KnowledgeError(
                    f"{folder}: more than {MAX_OVERRIDE_FILES} YAML files in the knowledge-base override folders: "
                    "expected a few files of entries that replace or add to the bundled ones"
                )
            if total > MAX_OVERRIDE_BYTES:
                raise KnowledgeError(
                    f"{folder}: the knowledge-base override folders hold more than {MAX_OVERRIDE_BYTES:,} bytes of "
                    f"YAML ({path.name} passes it): expected a few entries that replace or add to the bundled ones"
                )
