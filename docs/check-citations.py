#!/usr/bin/env python3
"""Checks that every citation of the product description names a section it has.

Code, tests, the OpenAPI text and the other documents cite `docs/product.md §N` (several:
`docs/product.md §2, §4 and §9`). This fails (exit 1), naming file and line, when N is
not a `## N. Title` heading of docs/product.md, or when a file still cites the product
the old way (`spec section N`, `spec N`). Run by `make lint`; `--self-test` checks the
checker on made-up text.
"""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ROOT / "docs" / "product.md"

HEADING = re.compile(r"^## (\d+)\. \S", re.MULTILINE)
# `docs/product.md §2`, then any run of `, §4`, ` and §9`, `, and §7`.
CITATION = re.compile(r"docs/product\.md (§\d+(?:(?:,? and |, )§\d+)*)")
SECTION = re.compile(r"§(\d+)")
OLD_FORM = re.compile(r"\b[Ss]pec(?: sections?)? \d")

# Files that are not ours to cite from, or not text.
SKIP_SUFFIXES = (".png", ".jpg", ".woff2", ".woff", ".ico", ".lock", ".gz")
SKIP_PARTS = ("package-lock.json", "tests/fixtures/", "node_modules/")


def sections(product_text):
    """The section numbers docs/product.md has."""
    return {int(n) for n in HEADING.findall(product_text)}


def problems(text, known):
    """(line, message) for each bad citation in one file's text."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        for cite in CITATION.finditer(line):
            for n in SECTION.findall(cite.group(1)):
                if int(n) not in known:
                    found.append((number, f"docs/product.md has no section §{n}"))
        if OLD_FORM.search(line):
            found.append((number, "cite the product as `docs/product.md §N`"))
    return found


def tracked_files():
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout
    for name in sorted(set(out.split("\n"))):
        if not name or name == "docs/product.md" or name == "docs/check-citations.py":
            continue
        if name.endswith(SKIP_SUFFIXES) or any(p in name for p in SKIP_PARTS):
            continue
        path = ROOT / name
        if path.is_file():
            yield name, path


def self_test():
    known = sections("# T\n\n## 1. One\n\n## 4. Four\n")
    assert known == {1, 4}, known
    assert problems("see docs/product.md §1 and §4", known) == []
    assert problems("see docs/product.md §1, §2 and §4", known) == [
        (1, "docs/product.md has no section §2")
    ]
    assert problems("x\n(spec section 4)", known) == [
        (2, "cite the product as `docs/product.md §N`")
    ]
    assert problems("openapi-spec-validator 3.1", known) == []
    print("check-citations: self-test passed")


def main():
    if sys.argv[1:] == ["--self-test"]:
        self_test()
        return 0
    if not PRODUCT.is_file():
        print("docs/product.md is missing: it is what the code cites", file=sys.stderr)
        return 1
    known = sections(PRODUCT.read_text())
    if not known:
        print("docs/product.md has no `## N. Title` sections", file=sys.stderr)
        return 1
    bad = 0
    cited = 0
    for name, path in tracked_files():
        try:
            text = path.read_text()
        except (UnicodeDecodeError, OSError):
            continue
        cited += len(CITATION.findall(text))
        for line, message in problems(text, known):
            print(f"{name}:{line}: {message}", file=sys.stderr)
            bad += 1
    if bad:
        print(f"{bad} citation(s) to mend; sections: {sorted(known)}", file=sys.stderr)
        return 1
    print(f"check-citations: {cited} citations of docs/product.md, all to existing sections")
    return 0


if __name__ == "__main__":
    sys.exit(main())
