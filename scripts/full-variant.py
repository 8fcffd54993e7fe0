#!/usr/bin/env python3
"""A variant of the `agent` suite over full upstream trees.

Re-points tune/check corpora whose recipe is a trimmed tree (an npm or
sdist tarball, a Debian `-dev`/php package's installed sources) at the
upstream orig tarball of the Debian source package of the same project
(`deb-source`: with its tests, docs, examples, benchmarks and CI files),
and prefixes their cases' expected paths to match the new root, so a run
measures what the rest of a real repository takes from the sources the
questions are about. Components of monorepos are left out (their questions
are about the component alone), and so are projects whose orig tarball
this machine's apt sources do not serve. Where the Debian version is older
than the suite's, the cases about what it does not have yet are left out.

Usage:
  scripts/full-variant.py OUT_DIR
  REPO_SEARCH_EVAL_CACHE=OUT_DIR/cache target/release/repo-search-eval \\
      run agent --evals OUT_DIR --modes hybrid --no-save
(The cache must be its own: corpora are cached by name.)
"""

import json
import re
import sys
from pathlib import Path

from agent_variant import suite_recipe, write_variant

# corpus -> (the deb-source recipe, the prefix from the suite's root to the
# new one, the cases left out); lang and split come from evals/corpora.toml
CORPORA = {
    "agent-express": ({
        "description": "express 4.18.2 full upstream tree (Debian node-express orig tarball; the suite's is the 4.21.2 npm tarball)",
        "package": "node-express", "version": "4.18.2+~4.17.14-1",
        "archive": "node-express_4.18.2+~4.17.14.orig.tar.gz",
        "sha256": "a9ace1a92a2b0a7e3fcd7a7612553d6208a464561c15ad38f349fc3ab0d7cda0",
        "dir": "express-4.18.2"}, "", ()),
    "agent-commander": ({
        "description": "commander 9.4.1 full upstream tree (Debian node-commander orig tarball; the suite's is the 14.0.3 npm tarball)",
        "package": "node-commander", "version": "9.4.1-1",
        "archive": "node-commander_9.4.1.orig.tar.gz",
        "sha256": "591ba7850546f51a710a776f9271f1401a08b0e2b831cbbc8354415273a9da12",
        "dir": "commander.js-9.4.1"}, "",
        # help groups, colour and ANSI-aware width came after 9.4.1
        ("agent-commander-101", "agent-commander-103", "agent-commander-105")),
    "agent-cobra": ({
        "description": "cobra 1.6.1 full upstream tree (Debian golang-github-spf13-cobra orig tarball)",
        "package": "golang-github-spf13-cobra", "version": "1.6.1-1",
        "archive": "golang-github-spf13-cobra_1.6.1.orig.tar.gz",
        "sha256": "f38f8b26895903be06089ff20882fc771dbca12f41cf81d7bd823be65e6cec52",
        "dir": "cobra-1.6.1"}, "", ()),
    "agent-gin": ({
        "description": "gin 1.8.1 full upstream tree (Debian golang-github-gin-gonic-gin orig tarball)",
        "package": "golang-github-gin-gonic-gin", "version": "1.8.1-1",
        "archive": "golang-github-gin-gonic-gin_1.8.1.orig.tar.gz",
        "sha256": "9f6a9a6c2b96c323902d8ee1728152bafdf1894130554a93af5d3f1807c0403b",
        "dir": "gin-1.8.1"}, "", ()),
    "agent-viper": ({
        "description": "viper 1.10.1 full upstream tree (Debian golang-github-spf13-viper orig tarball)",
        "package": "golang-github-spf13-viper", "version": "1.10.1-1",
        "archive": "golang-github-spf13-viper_1.10.1.orig.tar.gz",
        "sha256": "9d4276ff76799b7e5a4ad39542df3b27e3b24e70356e84ceaa338c782617c275",
        "dir": "viper-1.10.1"}, "", ()),
    "agent-goldmark": ({
        "description": "goldmark 1.5.4 full upstream tree (Debian golang-github-yuin-goldmark orig tarball)",
        "package": "golang-github-yuin-goldmark", "version": "1.5.4-1",
        "archive": "golang-github-yuin-goldmark_1.5.4.orig.tar.gz",
        "sha256": "edf3e0cd200745f67d2dd1cff3dc24fcbadd34d9fc4faef08f9ab0b4b514c103",
        "dir": "goldmark-1.5.4"}, "", ()),
    "agent-urfave-cli": ({
        "description": "urfave/cli 2.3.0 full upstream tree (Debian golang-github-urfave-cli-v2 orig tarball)",
        "package": "golang-github-urfave-cli-v2", "version": "2.3.0-2",
        "archive": "golang-github-urfave-cli-v2_2.3.0.orig.tar.gz",
        "sha256": "b17376246f1477157daab86d4a1562d6b004f5be0d15dfc61ebd8bb129384e6b",
        "dir": "cli-2.3.0"}, "", ()),
    "agent-monolog": ({
        "description": "Monolog 2.9.1 full upstream tree (Debian php-monolog orig tarball)",
        "package": "php-monolog", "version": "2.9.1-1",
        "archive": "php-monolog_2.9.1.orig.tar.xz",
        "sha256": "55d7d62eee001d4e68fe0d53841ede53bd583f4e0e3a172877d9a939f4b3c79e",
        "dir": "php-monolog-2.9.1"}, "src/Monolog/", ()),
    "agent-googletest": ({
        "description": "GoogleTest 1.12.1 full upstream tree (Debian googletest orig tarball)",
        "package": "googletest", "version": "1.12.1-0.2",
        "archive": "googletest_1.12.1.orig.tar.gz",
        "sha256": "81964fe578e9bd7c94dfdb09c8e4d6e6759e19967e397dbea48d1c10e45d0df2",
        "dir": "googletest-release-1.12.1"}, "", ()),
    "agent-bash-completion": ({
        "description": "bash-completion 2.11 full upstream tree (Debian bash-completion orig tarball)",
        "package": "bash-completion", "version": "1:2.11-6",
        "archive": "bash-completion_2.11.orig.tar.gz",
        "sha256": "16adefabf43ec8ffb473704f5724d775c2f47e9f750d7d608f0251ec21fe8813",
        "dir": "bash-completion-2.11"}, "", ()),
    "agent-rich": ({
        "description": "rich 13.3.1 full upstream tree (Debian rich orig tarball; the suite's is the 14.0.0 sdist)",
        "package": "rich", "version": "13.3.1-1",
        "archive": "rich_13.3.1.orig.tar.xz",
        "sha256": "728e0ad25de9448fedee56acaa3219207e7c98d9d56fda5cfd5daa5d254acaac",
        "dir": "rich-13.3.1"}, "", ()),
}

def main() -> None:
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    recipes = {}
    for name, (recipe, _, _) in CORPORA.items():
        keep = dict(re.findall(r'^(lang|split) = "([^"]*)"', suite_recipe(name), re.M))
        fields = {"kind": "deb-source", **keep, **recipe}
        recipes[name] = "".join(f"{k} = {json.dumps(v)}\n" for k, v in fields.items())
    skip = {case for _, _, cases in CORPORA.values() for case in cases}
    write_variant(Path(sys.argv[1]), recipes, {n: e[1] for n, e in CORPORA.items()}, skip)

if __name__ == "__main__":
    main()
