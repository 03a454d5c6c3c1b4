"""A mutant applied to a private copy of a loop's artifact directory (what every gate judges)."""
from __future__ import annotations

import shutil
from pathlib import Path

from corpus.model import Mutant


def materialize(artifact_dir: Path, mutant: Mutant | None, dest: Path) -> Path:
    """Copy ``artifact_dir`` to ``dest`` (links not followed) and apply ``mutant`` to its target
    (None = the conforming artifact itself, the control)."""
    shutil.copytree(artifact_dir, dest, symlinks=False)
    if mutant is not None:
        tgt = dest / mutant.target
        if mutant.content is None:
            if tgt.exists():
                tgt.unlink()
        else:
            tgt.parent.mkdir(parents=True, exist_ok=True)
            tgt.write_bytes(mutant.content)
    return dest
