#!/usr/bin/env python3
"""Checks the include graph between the folders of src/: each folder may include only the folders
listed for it below (its floors), so no edge runs back up. Prints each offending include as
file:line and exits 1; prints nothing and exits 0 when the graph keeps to the table.
Usage: scripts/check_includes.py [src dir]"""
import pathlib
import re
import sys

# Each folder and the folders it may include (besides itself), from the bottom up. pt2onnx.h, the
# public header at src/, may be included by config/ (its option table), api/ and cli/ only.
ALLOWED = {
    "common": set(),
    "ir": {"common"},
    "model": {"common", "ir"},
    "archive": {"common", "ir"},
    "import": {"common", "ir"},
    "translate": {"common", "ir", "model"},
    "fx_passes": {"common", "ir", "translate"},  # translate: TranslateOptions and is_dropped_target
    "hierarchy": {"common", "ir", "model"},
    "clean": {"common", "ir", "model", "hierarchy"},
    "config": {"common", "ir", "model", "translate", "hierarchy", "pt2onnx.h"},
    "emit": {"common", "ir", "model", "archive"},
    "kernels": {"common", "ir", "model", "archive", "emit"},
    "api": {"common", "ir", "model", "archive", "import", "translate", "fx_passes", "hierarchy", "clean", "config", "emit",
            "kernels", "pt2onnx.h"},
    "cli": {"common", "api", "config", "kernels", "pt2onnx.h"},
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def main() -> int:
    src = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent / "src")
    bad = []
    for path in sorted(src.rglob("*")):
        if path.suffix not in (".h", ".cpp", ".inc") or path.parent == src:
            continue
        folder = path.relative_to(src).parts[0]
        if folder not in ALLOWED:
            bad.append(f"{path}: folder {folder}/ is not in scripts/check_includes.py's table")
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            match = INCLUDE.match(line)
            if not match:
                continue
            target = match.group(1)
            head = target.split("/")[0] if "/" in target else target
            if "/" not in target and head != "pt2onnx.h":
                continue  # a generated header (pt2onnx_version.h) or a same-folder one
            if head == folder or head in ALLOWED[folder]:
                continue
            bad.append(f"{path}:{number}: {folder}/ includes {target}")
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
