#!/usr/bin/env python3
"""Drive `repo-search mcp` with the official MCP Python SDK (`mcp` on PyPI).

A client nobody here wrote, against the real binary, in both protocol eras:
the legacy `initialize` handshake (2025-11-25) and the stateless 2026-07-28
era (`server/discover`, then `_meta` on every request). The SDK also checks
every successful result's `structuredContent` against the tool's declared
`outputSchema` (with jsonschema), so a schema that lies fails here.

Usage: .venv-test/bin/python scripts/mcp-python-check.py --binary target/release/repo-search
(scripts/setup-test-deps.sh creates .venv-test). Prints one line per check
and `N passed, M failed` at the end; exits non-zero on any failure.
"""

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client

FILES = {
    "src/config.rs": (
        "//! Configuration.\n\n"
        "/// Parsed configuration.\n"
        "pub struct Config {\n"
        "    pub name: String,\n"
        "}\n\n"
        "impl Config {\n"
        "    /// Parses the config text.\n"
        "    pub fn parse_config(text: &str) -> Config {\n"
        "        Config { name: text.trim().to_string() }\n"
        "    }\n"
        "}\n"
    ),
    "src/main.rs": 'mod config;\n\nfn main() {\n    let c = config::Config::parse_config("x");\n    println!("{}", c.name);\n}\n',
    "app/views.py": (
        "import os\n\n\n"
        "class LoginView:\n"
        '    """Handles the login form."""\n\n'
        "    def post(self, request):\n"
        "        token = request.csrf_token\n"
        "        return validate_csrf_token(token)\n\n\n"
        "def validate_csrf_token(token):\n"
        '    """Check that the CSRF token is valid."""\n'
        '    return token == os.environ.get("SECRET")\n'
    ),
}

EXPECTED_TOOLS = {
    "find_symbol",
    "find_references",
    "list_defs_in_file",
    "imports",
    "search",
    "search_semantic",
    "similar_code",
    "search_keyword",
    "read_file",
    "callers",
    "callees",
    "context",
    "index_status",
    "file_history",
    "blame",
    "stats",
    "config",
    "index",
}


class Checks:
    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    def check(self, name: str, ok: bool, detail: object = "") -> None:
        if ok:
            self.passed += 1
            print(f"ok   {name}")
        else:
            self.failed += 1
            print(f"FAIL {name}: {detail}")


def error_of(result) -> dict:
    """The `error: ...` and `hint: ...` lines of an error result's text."""
    text = "\n".join(getattr(c, "text", "") for c in result.content)
    out = {"error": "", "hint": ""}
    for line in text.splitlines():
        for key in out:
            if line.startswith(key + ": "):
                out[key] = line[len(key) + 2 :]
    return out


async def call(session: ClientSession, tool: str, args: dict):
    return await session.call_tool(tool, args)


async def wait_indexed(session: ClientSession, files: int) -> dict:
    deadline = time.monotonic() + 60
    status: dict = {}
    while time.monotonic() < deadline:
        r = await call(session, "index_status", {})
        status = r.structured_content or {}
        if status.get("exists") and status.get("files") == files and not status.get("indexing"):
            return status
        await asyncio.sleep(0.05)
    return status


async def run_era(era: str, binary: str, root: Path, checks: Checks) -> None:
    env = {}
    if os.environ.get("REPO_SEARCH_HOME"):
        env["REPO_SEARCH_HOME"] = os.environ["REPO_SEARCH_HOME"]
    params = StdioServerParameters(command=binary, args=["mcp", "--root", str(root)], env=env, cwd=str(root))
    with open(os.devnull, "w") as devnull:
        async with stdio_client(params, errlog=devnull) as (read, write):
            async with ClientSession(read, write) as session:
                if era == "legacy":
                    result = await session.initialize()
                    checks.check(f"{era}: initialize negotiates 2025-11-25", result.protocol_version == "2025-11-25", result)
                else:
                    result = await session.discover()
                    checks.check(
                        f"{era}: discover offers 2026-07-28",
                        "2026-07-28" in result.supported_versions and session.protocol_version == "2026-07-28",
                        result,
                    )
                name = session.server_info.name if session.server_info else None
                checks.check(f"{era}: server name", name == "repo-search", name)

                tools = (await session.list_tools()).tools
                names = {t.name for t in tools}
                checks.check(f"{era}: tools/list names", names == EXPECTED_TOOLS, sorted(names))
                checks.check(
                    f"{era}: every tool is readOnly with an outputSchema",
                    all(t.annotations and t.output_schema and bool(t.annotations.read_only_hint) == (t.name != "index") for t in tools),
                    [t.name for t in tools],
                )

                status = await wait_indexed(session, len(FILES))
                checks.check(f"{era}: index built in the background", status.get("files") == len(FILES), status)

                r = await call(session, "find_symbol", {"name": "parse_config"})
                s = (r.structured_content or {}).get("symbols", [{}])[0]
                checks.check(
                    f"{era}: find_symbol parse_config",
                    not r.is_error and (s.get("path"), s.get("start_line"), s.get("kind")) == ("src/config.rs", 10, "method"),
                    r.structured_content,
                )

                r = await call(session, "find_references", {"name": "parse_config"})
                refs = [(h["path"], h["line"], h["kind"]) for h in (r.structured_content or {}).get("hits", [])]
                checks.check(
                    f"{era}: find_references parse_config",
                    not r.is_error and ("src/config.rs", 10, "definition") in refs and ("src/main.rs", 4, "call") in refs,
                    r.structured_content,
                )

                # The graph tools' answers validate against their output
                # schemas (the SDK checks structuredContent), with nothing
                # resolved (`import os`) as well as resolved edges.
                for tool, args, want in [
                    ("imports", {"path": "app/views.py"}, lambda v: v["imports"][0]["module"] == "os" and "resolved" not in v["imports"][0]),
                    ("imports", {"path": "src/main.rs"}, lambda v: v["imports"][0].get("resolved") == "src/config.rs"),
                    ("callers", {"name": "Config.parse_config"}, lambda v: v["edges"][0]["at"] == "src/main.rs:4"),
                    ("callees", {"name": "main"}, lambda v: any(e["to"] == "Config::parse_config" for e in v["edges"])),
                    ("context", {"path": "src/main.rs", "line": 4}, lambda v: v["enclosing"]["symbol"].endswith("main")),
                    ("index_status", {"sizes": True}, lambda v: v["sizes"]["db_bytes"] >= sum(t["bytes"] + t["index_bytes"] for t in v["sizes"]["tables"]) > 0
                        and {"chunks", "chunks_fts", "symbols"} <= {t["name"] for t in v["sizes"]["tables"]}),
                    ("config", {"key": "embed.batch_size"}, lambda v: v["settings"] == [{"key": "embed.batch_size", "value": "16", "source": "default"}]),
                    # Every call above was logged: `stats` counts them, per surface.
                    ("stats", {"since": "1h"}, lambda v: any(o["op"] == "callers" and o["mcp"] >= 1 and o["p50_ms"] <= o["p95_ms"] <= o["p99_ms"] for o in v["ops"])
                        and v["records"] >= 5),
                ]:
                    try:
                        r = await call(session, tool, args)
                        ok = not r.is_error and want(r.structured_content or {})
                        got = r.structured_content
                    except Exception as e:  # the SDK refuses content off its schema
                        ok, got = False, repr(e)
                    checks.check(f"{era}: {tool} {args}", ok, got)

                r = await call(session, "list_defs_in_file", {"path": "app/views.py"})
                # Compact answers leave out depth 0.
                defs = [(d["name"], d.get("depth", 0)) for d in (r.structured_content or {}).get("definitions", [])]
                checks.check(
                    f"{era}: list_defs_in_file app/views.py",
                    not r.is_error and defs == [("LoginView", 0), ("post", 1), ("validate_csrf_token", 0)],
                    r.structured_content,
                )

                r = await call(session, "search_keyword", {"pattern": "csrf_token", "glob": ["*.py"]})
                got = [(m["path"], m["line"]) for m in (r.structured_content or {}).get("matches", [])]
                checks.check(
                    f"{era}: search_keyword csrf_token",
                    not r.is_error and got == [("app/views.py", 8), ("app/views.py", 9), ("app/views.py", 12)],
                    r.structured_content,
                )

                r = await call(session, "read_file", {"path": "src/config.rs", "start_line": 4, "end_line": 6})
                content = (r.structured_content or {}).get("content")
                checks.check(
                    f"{era}: read_file lines 4-6",
                    not r.is_error and content == "4\tpub struct Config {\n5\t    pub name: String,\n6\t}",
                    r.structured_content,
                )

                r = await call(session, "read_file", {"path": "../../etc/passwd"})
                err = error_of(r)
                checks.check(
                    f"{era}: read_file ../../etc/passwd is a tool error",
                    r.is_error is True and "outside" in err["error"] and err["hint"],
                    r,
                )

                r = await call(session, "search_keyword", {"pattern": "foo("})
                err = error_of(r)
                checks.check(
                    f"{era}: invalid regex is a tool error with a hint",
                    r.is_error is True and "invalid regex" in err["error"] and "fixed_strings" in err["hint"],
                    r,
                )

                r = await call(session, "search", {"query": "validate csrf token"})
                hits = (r.structured_content or {}).get("hits", [])
                checks.check(
                    f"{era}: search finds views.py first",
                    # Compact hits say where as `at`: `path:start-end`.
                    not r.is_error and hits and hits[0]["at"].startswith("app/views.py:"),
                    r.structured_content,
                )

                r = await call(session, "search", {"query": "validate csrf token", "detail": True})
                hits = (r.structured_content or {}).get("hits", [])
                checks.check(
                    f"{era}: search with detail gives scores and snippets",
                    not r.is_error and hits and "score" in hits[0] and "snippet" in hits[0],
                    r.structured_content,
                )

                # The SDK validates structuredContent against the outputSchema,
                # so these also check the schemas of every answer shape.
                r = await call(session, "search", {"queries": ["validate csrf token", "!!! ???"]})
                results = (r.structured_content or {}).get("results", [])
                checks.check(
                    f"{era}: bulk search answers each query on its own",
                    not r.is_error
                    and len(results) == 2
                    and results[0].get("hits", [{}])[0].get("at", "").startswith("app/views.py:")
                    and "no searchable words" in results[1].get("error", ""),
                    r.structured_content,
                )

                r = await call(session, "search_semantic", {"query": "check the csrf token"})
                sem = r.structured_content or {}
                checks.check(
                    f"{era}: search_semantic without a model answers available: false",
                    not r.is_error and sem.get("available") is False and "model fetch" in sem.get("hint", ""),
                    r,
                )

                try:
                    await call(session, "no_such_tool", {})
                    checks.check(f"{era}: unknown tool is a JSON-RPC error", False, "no error raised")
                except MCPError as e:
                    checks.check(f"{era}: unknown tool is a JSON-RPC error", e.error.code == -32602, e.error)


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--binary", required=True, help="path of the repo-search binary")
    args = parser.parse_args()
    binary = str(Path(args.binary).resolve())
    checks = Checks()
    for era in ("legacy", "modern"):
        with tempfile.TemporaryDirectory(prefix="repo-search-py-") as tmp:
            root = Path(tmp).resolve()
            for rel, text in FILES.items():
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                (root / rel).write_text(text)
            try:
                await asyncio.wait_for(run_era(era, binary, root, checks), timeout=120)
            except Exception as e:  # a crash in one era is a failed check, not a traceback
                checks.check(f"{era}: session ran to the end", False, repr(e))
    print(f"{checks.passed} passed, {checks.failed} failed")
    return 0 if checks.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
