#!/usr/bin/env python3
"""Size check of the C++ tree (run by scripts/test.sh): a file or function past its limit is a
sign that it holds more than one concern.

Limits: a rule family file (src/translate/rules/ or src/translate/rules_*.cpp) 1,500 lines, any
other .cpp/.h 800 lines, a function body 120 lines. Generated tables (*.inc) are not checked.
Functions are found by layout, as the tree writes them: a definition starts at column 0 and
ends where its braces balance (strings, characters and line comments left out of the count);
class, struct, enum, union and namespace blocks are not functions.

  scripts/check_sizes.py [ROOT]   exit 0: all within limits; 1: each excess printed, one a line
"""
import re
import sys
from pathlib import Path

FILE_LIMIT = 800
RULE_FILE_LIMIT = 1500
FUNCTION_LIMIT = 120
NOT_FUNCTIONS = re.compile(r"^(template\s*<.*>\s*)?(class|struct|enum|union|namespace|extern)\b")


def is_rule_family(path: Path) -> bool:
    parts = path.parts
    return ("rules" in parts and "translate" in parts) or path.name.startswith("rules_")


STRIPPED = re.compile(r'"(\\.|[^"\\])*"|\'(\\.|[^\'\\])*\'|//.*$')


def long_functions(lines):
    """Yields (first line number, length, head) of each function body longer than the limit."""
    start = None
    depth = 0
    head = ""
    for number, line in enumerate(lines, 1):
        if start is None:
            if line[:1].isspace() or not line.strip() or line.startswith(("//", "#", "}")):
                continue
            if NOT_FUNCTIONS.match(line) or line.rstrip().endswith(";"):
                continue
            if "(" not in line and not line.rstrip().endswith("{"):
                continue
            start, head, depth = number, line.strip(), 0
        code = STRIPPED.sub("", line)
        opened = depth > 0 or "{" in code
        depth += code.count("{") - code.count("}")
        if opened and depth <= 0:
            length = number - start + 1
            if length > FUNCTION_LIMIT:
                yield start, length, head
            start = None
        elif not opened and code.rstrip().endswith(";"):
            start = None  # a declaration spread over several lines, not a definition


def main() -> int:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)
    failures = []
    for path in sorted((root / "src").rglob("*")):
        if path.suffix not in (".cpp", ".h"):
            continue
        rel = path.relative_to(root)
        lines = path.read_text(encoding="utf-8").splitlines()
        limit = RULE_FILE_LIMIT if is_rule_family(rel) else FILE_LIMIT
        if len(lines) > limit:
            failures.append(f"{rel}: {len(lines)} lines (limit {limit})")
        for start, length, head in long_functions(lines):
            failures.append(f"{rel}:{start}: function of {length} lines (limit {FUNCTION_LIMIT}): {head[:80]}")
    for failure in failures:
        print(failure)
    print(f"check_sizes: {len(failures)} over the limits" if failures else "check_sizes: every file and function within the limits")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
