#!/usr/bin/env python3
"""Every relative link in README.md, CHANGELOG.md and docs/ points to a file that exists, and a
#anchor to a heading of that file (GitHub's slugs). Usage: docs_links_test.py SOURCE_DIR"""
import pathlib
import re
import sys

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def prose_lines(path):
    """The file's lines outside fenced code blocks, with their numbers."""
    inside = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line):
            inside = not inside
            continue
        if not inside:
            yield number, re.sub(r"`[^`]*`", "", line)  # inline code is not a link


def slugs(path):
    """GitHub's anchors for the file's headings (a repeated heading gets -1, -2, ...)."""
    seen, out = {}, set()
    for _, line in prose_lines(path):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def main():
    src = pathlib.Path(sys.argv[1]).resolve()
    pages = [src / "README.md", src / "CHANGELOG.md"] + sorted((src / "docs").rglob("*.md"))
    problems, checked = [], 0
    for page in pages:
        if not page.exists():
            problems.append(f"{page.relative_to(src)}: missing")
            continue
        for number, line in prose_lines(page):
            for target in LINK.findall(line):
                if re.match(r"^[a-z]+:", target):
                    continue  # http:, https:, mailto:
                checked += 1
                file_part, _, anchor = target.partition("#")
                dest = (page.parent / file_part).resolve() if file_part else page
                where = f"{page.relative_to(src)}:{number}: {target}"
                if not dest.exists():
                    problems.append(f"{where}: no such file")
                elif anchor and dest.suffix == ".md" and anchor not in slugs(dest):
                    problems.append(f"{where}: no heading with that anchor")
    for p in problems:
        print(p)
    print(f"{checked} links checked in {len(pages)} pages, {len(problems)} broken")
    return 1 if problems or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
