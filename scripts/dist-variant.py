#!/usr/bin/env python3
"""A variant of the `agent` suite with build output beside the source.

Re-roots the npm corpora whose tarballs ship a `dist/` bundle next to the
sources the suite searches (ajv `lib/`, immer, mobx and rxjs `src/`) at the
tarball's `package/` directory, and prefixes their cases' expected paths
to match, so a run measures how much the bundles take from the live source.

Usage:
  scripts/dist-variant.py OUT_DIR
  REPO_SEARCH_EVAL_CACHE=OUT_DIR/cache target/release/repo-search-eval \\
      run agent --evals OUT_DIR --modes hybrid --no-save
(The cache must be its own: corpora are cached by name.)
"""

import re
import sys
from pathlib import Path

from agent_variant import suite_recipe, write_variant

# corpus -> the directory the suite's own recipe searches, inside package/
CORPORA = {"agent-ajv": "lib/", "agent-immer": "src/", "agent-mobx": "src/", "agent-rxjs": "src/"}

def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    recipes = {
        name: re.sub(r'^dir = "package/[^"]*"', 'dir = "package"', suite_recipe(name), flags=re.M)
        for name in CORPORA
    }
    write_variant(Path(sys.argv[1]), recipes, CORPORA)

if __name__ == "__main__":
    main()
