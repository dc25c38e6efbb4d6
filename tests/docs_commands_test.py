#!/usr/bin/env python3
"""Runs every shell block of README.md and docs/ marked runnable (the line before its fence is
`<!-- runnable -->`), as a new user would: from the repository's root, in a scratch copy whose
source entries are links to the tree and whose build/ is the built one. A block fails on its first
failing command. Usage: docs_commands_test.py SOURCE_DIR BUILD_DIR"""
import os
import pathlib
import re
import subprocess
import sys
import tempfile

MARK = "<!-- runnable -->"
BLOCK_TIMEOUT_S = 300


def runnable_blocks(page):
    lines = page.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        if line.strip() != MARK:
            continue
        fence = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if not re.match(r"^```(sh|bash|shell)?$", fence):
            yield i + 1, None  # a mark without a shell block under it
            continue
        end = next((j for j in range(i + 2, len(lines)) if lines[j].strip() == "```"), None)
        yield i + 1, None if end is None else "\n".join(lines[i + 2:end])


def scratch_root(src, build, tmp):
    for entry in src.iterdir():
        if entry.name not in ("build", ".git"):
            os.symlink(entry, tmp / entry.name)
    os.symlink(build, tmp / "build")


def main():
    src, build = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2]).resolve()
    pages = [src / "README.md"] + sorted((src / "docs").rglob("*.md"))
    failures, ran = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        scratch_root(src, build, root)
        for page in pages:
            for line, block in runnable_blocks(page):
                where = f"{page.relative_to(src)}:{line}"
                if block is None:
                    failures.append(f"{where}: '{MARK}' is not followed by a closed shell block")
                    continue
                ran += 1
                print(f"--- {where}\n{block}", flush=True)
                try:
                    done = subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=root, capture_output=True, text=True,
                                          timeout=BLOCK_TIMEOUT_S)
                except subprocess.TimeoutExpired:
                    failures.append(f"{where}: still running after {BLOCK_TIMEOUT_S} s")
                    continue
                if done.returncode != 0:
                    failures.append(f"{where}: exit {done.returncode}\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    for f in failures:
        print("FAIL:", f)
    print(f"{ran} runnable blocks run, {len(failures)} failed")
    return 1 if failures or ran == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
