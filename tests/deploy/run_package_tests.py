#!/usr/bin/env python3
"""Debian package tests (ctest `deb_package`).

- `cpack -G DEB` builds pt2onnx and pt2onnx-dev from the build tree; `dpkg-deb -I` shows their
  control data (Version is project(VERSION), Depends computed by dpkg-shlibdeps) and the file
  lists hold what each component should.
- lintian reports no error or warning on either package (its full output is printed).
- Runtime closure, what the debian:12-slim stage of the Dockerfile relies on: every shared library
  that an installed ELF file needs (objdump -p NEEDED, resolved with ldd) belongs to a package
  the runtime package Depends on, and none of them is Python.
- The man page and both completions mention every option of every command (`--help`).

Prints one line per check and `N passed, M failed`; exits 1 on failure.
"""
from __future__ import annotations

import argparse
import gzip
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
from ort_compare import CheckFailed, run_checks  # noqa: E402


def run(cmd, check=True, cwd=None):
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=1200, cwd=cwd)
    if check and proc.returncode != 0:
        raise CheckFailed(f"{' '.join(map(str, cmd))}: exit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc


def control_field(info: str, field: str) -> str:
    m = re.search(rf"^ {field}: (.*)$", info, re.M)
    return m.group(1).strip() if m else ""


def depends_packages(depends: str) -> set[str]:
    names = set()
    for clause in depends.split(","):
        for alternative in clause.split("|"):
            names.add(alternative.strip().split(" ")[0].split(":")[0])
    return names


class Packages:
    def __init__(self, build: Path, work: Path):
        self.work = work
        run(["cpack", "-G", "DEB", "--config", build / "CPackConfig.cmake", "-B", work / "cpack"])
        debs = sorted((work / "cpack").glob("*.deb"))
        self.runtime = next(d for d in debs if d.name.startswith("pt2onnx_"))
        self.dev = next(d for d in debs if d.name.startswith("pt2onnx-dev_"))
        self.root = work / "root"
        run(["dpkg-deb", "-x", self.runtime, self.root])


def check_control(pkgs: Packages, version: str):
    lines = []
    for deb, must_have in [(pkgs.runtime, ["./usr/bin/pt2onnx", "./usr/share/man/man1/pt2onnx.1.gz",
                                           "./usr/share/bash-completion/completions/pt2onnx",
                                           "./usr/share/zsh/vendor-completions/_pt2onnx",
                                           "./usr/share/pt2onnx/schema/pt2onnx-report.schema.json",
                                           "./usr/share/doc/pt2onnx/copyright"]),
                           (pkgs.dev, ["./usr/include/pt2onnx.h", "./usr/lib/libpt2onnx_lib.a",
                                       "./usr/lib/cmake/pt2onnx/pt2onnxConfig.cmake",
                                       "./usr/share/doc/pt2onnx-dev/copyright"])]:
        info = run(["dpkg-deb", "-I", deb]).stdout
        files = [line.split()[-1] for line in run(["dpkg-deb", "-c", deb]).stdout.splitlines()]
        missing = [f for f in must_have if f not in files]
        if missing:
            raise CheckFailed(f"{deb.name} lacks {missing}")
        if control_field(info, "Version") != version:
            raise CheckFailed(f"{deb.name}: Version {control_field(info, 'Version')!r}, project version {version}")
        lines.append(f"{deb.name}: Depends: {control_field(info, 'Depends')} ({len(files)} entries)")
    if not control_field(run(["dpkg-deb", "-I", pkgs.runtime]).stdout, "Depends").startswith("lib"):
        raise CheckFailed("the runtime package has no computed Depends")
    return "; ".join(lines)


def check_lintian(pkgs: Packages):
    if not shutil.which("lintian"):
        raise CheckFailed("lintian is not installed (scripts/install_deps.sh installs it)")
    proc = run(["lintian", "--no-tag-display-limit", pkgs.runtime, pkgs.dev], check=False)
    tags = [line for line in proc.stdout.splitlines() if line[:2] in ("E:", "W:")]
    print(proc.stdout.strip() or "lintian: no tags", flush=True)
    if tags:
        raise CheckFailed(f"lintian: {tags}")
    return f"no errors or warnings ({len(proc.stdout.splitlines())} informational lines)"


def check_closure(pkgs: Packages):
    depends = depends_packages(control_field(run(["dpkg-deb", "-I", pkgs.runtime]).stdout, "Depends"))
    report = []
    elves = [p for p in pkgs.root.rglob("*") if p.is_file() and p.read_bytes()[:4] == b"\x7fELF"]
    if not elves:
        raise CheckFailed("no ELF file in the runtime package")
    for elf in elves:
        needed = re.findall(r"^\s*NEEDED\s+(\S+)", run(["objdump", "-p", elf]).stdout, re.M)
        resolved = dict(re.findall(r"^\s*(\S+) => (\S+)", run(["ldd", elf]).stdout, re.M))
        for lib in needed:
            if "python" in lib.lower():
                raise CheckFailed(f"{elf.name} needs {lib}")
            path = resolved.get(lib)
            if not path or path == "not":
                raise CheckFailed(f"{elf.name}: {lib} not found by ldd")
            owner = run(["dpkg", "-S", path], check=False)
            if owner.returncode != 0:  # /lib is /usr/lib on Debian 12: dpkg knows one spelling
                owner = run(["dpkg", "-S", str(Path(path).resolve())], check=False)
            package = owner.stdout.split(":")[0].strip() if owner.returncode == 0 else ""
            if package not in depends:
                raise CheckFailed(f"{elf.name}: {lib} ({path}) comes from {package or 'no package'}, not in Depends {sorted(depends)}")
            report.append(f"{lib} <- {package}")
    if any("python" in d for d in depends):
        raise CheckFailed(f"Depends names Python: {sorted(depends)}")
    return f"{', '.join(e.name for e in elves)}: " + ", ".join(report)


def options_of(exe: Path):
    flags = set()
    for command in [[], ["inspect"], ["ops"]]:
        text = run([exe, *command, "--help"]).stdout
        flags |= set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[a-z])\b", text.split("Subcommands:")[0]))
    return sorted(flags)


def check_docs(pkgs: Packages, exe: Path):
    man = gzip.decompress((pkgs.root / "usr/share/man/man1/pt2onnx.1.gz").read_bytes()).decode()
    man = re.sub(r"\\f[BIR]", "", man).replace("\\-", "-")  # fonts off, minus signs as dashes
    bash = (pkgs.root / "usr/share/bash-completion/completions/pt2onnx").read_text()
    zsh = (pkgs.root / "usr/share/zsh/vendor-completions/_pt2onnx").read_text()
    flags = options_of(exe)
    for name, text in [("man page", man), ("bash completion", bash), ("zsh completion", zsh)]:
        missing = [f for f in flags if not re.search(rf"(?<![\w-]){re.escape(f)}(?![\w-])", text)]
        if missing:
            raise CheckFailed(f"the {name} lacks {missing}")
    man_check = run(["man", "--warnings", "-l", "-Tutf8", pkgs.root / "usr/share/man/man1/pt2onnx.1.gz"], check=False) \
        if shutil.which("man") else None
    if man_check is not None and man_check.stderr.strip():
        raise CheckFailed(f"man: {man_check.stderr.strip()}")
    if shutil.which("bash"):
        run(["bash", "-n", pkgs.root / "usr/share/bash-completion/completions/pt2onnx"])
    if shutil.which("zsh"):
        run(["zsh", "-n", pkgs.root / "usr/share/zsh/vendor-completions/_pt2onnx"])
    return f"{len(flags)} options ({' '.join(flags)}) in the man page and both completions"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True, type=Path)
    parser.add_argument("--pt2onnx", required=True, type=Path)
    parser.add_argument("--version", required=True)
    args = parser.parse_args()
    for tool in ["cpack", "dpkg-deb", "dpkg-shlibdeps", "objdump", "ldd"]:
        if not shutil.which(tool):
            print(f"SKIP: {tool} is not installed (dpkg-dev, binutils)")
            return 77
    with tempfile.TemporaryDirectory(prefix="pt2onnx-deb-") as tmp:
        pkgs = Packages(args.build, Path(tmp))
        return run_checks([
            ("control and file lists", lambda: check_control(pkgs, args.version)),
            ("lintian", lambda: check_lintian(pkgs)),
            ("runtime closure", lambda: check_closure(pkgs)),
            ("man page and completions", lambda: check_docs(pkgs, args.pt2onnx)),
        ])


if __name__ == "__main__":
    sys.exit(main())
