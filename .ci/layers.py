#!/usr/bin/env python3
"""The layer rules of the workspace, read from `cargo metadata` (README, "Layout"). The compiler
keeps a crate from using one it does not depend on; this keeps the dependencies themselves
pointing down. Prints each rule broken and exits 1 if any is; prints the graph either way."""
import json, subprocess, sys

meta = json.loads(subprocess.run(
    ["cargo", "metadata", "--format-version", "1", "--no-deps", "--locked"],
    check=True, capture_output=True, text=True).stdout)
crates = {p["name"]: p for p in meta["packages"]}
ws = set(crates)

def deps(name, kinds=(None,)):
    """Names of the crate's dependencies of these kinds (None: normal, "build", "dev")."""
    return {d["name"] for d in crates[name]["dependencies"] if d["kind"] in kinds}

# Each workspace crate and the workspace crates it may use, bottom to top.
ALLOWED = {
    "gcscope-model": set(),
    "gcscope-core": {"gcscope-model"},
    "gcscope-lab": {"gcscope-model"},
    "gcscope-source": {"gcscope-model", "gcscope-core", "gcscope-lab"},
    "gcscope-tui": {"gcscope-model", "gcscope-core", "gcscope-source"},
    "gcscope": {"gcscope-model", "gcscope-core", "gcscope-lab", "gcscope-source", "gcscope-tui"},
}
# What a layer must not pull in, whatever the path.
FORBIDDEN = {
    "gcscope-model": {"ratatui", "crossterm", "tokio", "clap", "anyhow"},
    "gcscope-core": {"ratatui", "crossterm", "tokio", "clap", "anyhow", "libc"},
    "gcscope-lab": {"ratatui", "crossterm", "tokio", "clap", "anyhow", "regex", "gcscope-core"},
    "gcscope-source": {"ratatui", "crossterm", "clap", "anyhow"},
    "gcscope-tui": {"clap", "anyhow"},
}

problems = []
if ws != set(ALLOWED):
    problems.append(f"workspace crates {sorted(ws)} are not the layers {sorted(ALLOWED)}")
for name in sorted(ws & set(ALLOWED)):
    normal = deps(name, (None, "build"))
    used = normal & ws
    for d in sorted(used - ALLOWED[name]):
        problems.append(f"{name} depends on {d}, a layer above it or beside it")
    for d in sorted(normal & FORBIDDEN.get(name, set())):
        problems.append(f"{name} depends on {d}")
    # A dev-dependency on a crate above would compile a second copy of this one in its tests.
    for d in sorted((deps(name, ("dev",)) & ws) - ALLOWED[name]):
        problems.append(f"{name}'s tests depend on {d}, a layer above it")
    print(f"{name:15} -> {', '.join(sorted(used)) or '(no workspace crate)'}")
for p in problems:
    print("layers:", p, file=sys.stderr)
sys.exit(1 if problems else 0)
