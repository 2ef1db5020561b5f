#!/usr/bin/env python3
"""docs_commands.py — run every faultline command that README.md and docs/*.md show, as a reader would.

A command is a line of a fenced code block that starts with `faultline` or `build/faultline` (continued over
trailing backslashes), or an inline code span that does and names no placeholder (an upper-case word such as DB,
FILE, N, or a choice written a|b, or [optional] parts). Each file's commands run in order in a scratch directory of
their own where scenarios/, data/, docs/ and tests/ of the source tree are at hand, so a command may use what an
earlier one of the same file wrote. `simulate` and `sweep` run with 2 replicas unless the command gives a number.

A command passes when it exits as the text around it says: 2 when the doc shows it refused (an output line
`faultline: ...` right after it, or "exit 2" / "exit status 2" in its line), else 0 (1 where the doc says "exit
1"). When the block shows the command's output, its first output line must still be printed, compared by its words
that are not numbers (replica counts and timings change with 2 replicas).

Commands that need what this machine may not have or take minutes are not run, each for a reason printed:
Slurm (--launcher slurm), a GPU (tmr --backend cuda), `run`/`calibrate`/`agree` beyond a few ranks, and
the benchmarks' million-node sweeps. The script prints one line per command: ok, FAIL (with the reason) or skip.

usage: docs_commands.py SOURCE_DIR FAULTLINE_BINARY [FILE.md ...]   (exit 0: all passed or skipped)
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

PLACEHOLDER = re.compile(r"(?<![\w.=/-])[A-Z][A-Z0-9_]*(?!\w)|\[|\]|\.\.\.|…|<[a-z]")
SHELL = re.compile(r"^(python3|sqlite3|cat|head|tail|ls|cd|bash|sh|scripts/|bench/|mpirun|gnuplot|h5dump|pj_dump|"
                   r"vite|chromium|\./|export |for |done|echo)\b")
# subcommands a bare mention of which runs as it is (no argument needed)
BARE = ("keys", "columns", "version", "validate")
NUMBER = re.compile(r"^[-+]?[\d.,:%±x]+[a-zA-Z%]*$")

# (pattern, reason): commands not run here
SKIP = [
    (re.compile(r"--launcher slurm"), "needs a Slurm cluster (test_slurm runs it on a local one)"),
    (re.compile(r"--backend cuda|tmr .*--gpu"), "needs a GPU"),
    (re.compile(r"\b(run|calibrate|agree)\b.*--np (\d{2,}|[5-9])"),
     "more than 4 MPI ranks: minutes when oversubscribed (test_agree runs calibrate and agree on 4)"),
    (re.compile(r"exascale-1M|gridworld-1M|gridworld-50x50|--replicas (\d{3,})"),
     "a benchmark's size: minutes (docs/benchmarks.md)"),
    (re.compile(r"bench/"), "a benchmark"),
]


def commands(path):
    """(line number, command, expected exit, first output line or None, why not to run it or None) for each
    command of a doc."""
    out = []
    lines = open(path, encoding="utf-8").read().split("\n")
    in_block = False
    block_skip = None  # <!-- docs-test: skip REASON --> on the line before a block: its commands are not run
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.strip().startswith("```"):
            in_block = not in_block
            m = re.match(r"^<!-- docs-test: skip (.*) -->$", lines[i - 1].strip()) if in_block and i else None
            block_skip = m.group(1) if m else None
            i += 1
            continue
        if in_block:
            s = line.strip()
            if s.startswith("$ "):
                s = s[2:]
            m = re.match(r"^(?:\./)?(?:build/)?faultline (.*)$", s)
            if m and not s.startswith("faultline:"):
                start = i
                cmd = m.group(1)
                while cmd.endswith("\\") and i + 1 < len(lines):
                    i += 1
                    cmd = cmd[:-1].rstrip() + " " + lines[i].strip()
                cmd = re.sub(r"\s+#.*$", "", cmd)  # a trailing comment
                # the block's output, if it shows one: the next line that is neither a command nor a comment
                first = None
                j = i + 1
                while j < len(lines) and not lines[j].strip().startswith("```"):
                    t = lines[j].strip()
                    if t and not re.match(r"^(\$ )?(\./)?(build/)?faultline ", t) and not t.startswith("#") \
                            and not SHELL.match(t.lstrip("$ ")) and not t.startswith("..."):
                        first = t
                    break
                expect = 2 if first and first.startswith("faultline: ") else 0
                if "exit 2" in line or "exit status 2" in line:
                    expect = 2
                elif "exit 1" in line:
                    expect = 1
                parts = [p.strip() for p in cmd.split(" && ")]
                for k, part in enumerate(parts):  # "faultline run ... && faultline report ...": one each
                    part = re.sub(r"^(?:\./)?(?:build/)?faultline ", "", part) if k else part
                    if not PLACEHOLDER.search(part.split(" ", 1)[1] if " " in part else ""):
                        out.append((start + 1, part, expect, first if k == len(parts) - 1 else None, block_skip))
        else:
            for m in re.finditer(r"`(?:\./)?(?:build/)?faultline ([^`]+)`", line):
                cmd = m.group(1).strip()
                words_ = cmd.split()
                rest = " ".join(words_[1:])
                # a command, not the mention of one: it names a file to work on, or needs nothing
                concrete = any("/" in w or re.search(r"\.(ini|sqlite|db|swf|gz|csv|json|xml)$", w) for w in words_[1:])
                if (concrete or (words_[0] in BARE)) and not PLACEHOLDER.search(rest) and "|" not in cmd:
                    for k, part in enumerate(p.strip() for p in cmd.split(" && ")):
                        out.append((i + 1, re.sub(r"^(?:\./)?(?:build/)?faultline ", "", part) if k else part, 0,
                                    None, None))
        i += 1
    return out


def words(text):
    return [w for w in text.split() if not NUMBER.match(w) and w not in ("±", "-", "|")]


def main():
    src, binary = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    # benchmarks.md's commands are the benchmarks' own (minutes each, run by bench/), not a reader's
    docs = sys.argv[3:] or ["README.md"] + sorted(
        os.path.join("docs", f) for f in os.listdir(os.path.join(src, "docs"))
        if f.endswith(".md") and f != "benchmarks.md")
    done = {}  # the commands that read nothing of the directory, run once: (rc, text)
    failed = ran = skipped = 0
    for doc in docs:
        cmds = commands(os.path.join(src, doc))
        if not cmds:
            continue
        work = tempfile.mkdtemp(prefix="fl-docs-")
        try:
            for d in ("scenarios", "data", "docs", "tests"):
                os.symlink(os.path.join(src, d), os.path.join(work, d))
            bindir = os.path.join(work, "build")
            os.mkdir(bindir)
            os.symlink(binary, os.path.join(bindir, "faultline"))
            env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
            missing = {}  # files a command not run here would have written: name -> its line
            for line, cmd, expect, first, block_skip in cmds:
                argv = shlex.split(cmd)
                why = block_skip or next((r for p, r in SKIP if p.search(cmd)), None)
                needs = next((f for f in missing if f in argv or any(a.endswith("=" + f) for a in argv)), None)
                if not why and needs:
                    why = f"needs {needs}, which the command at line {missing[needs]} writes"
                if why:
                    print(f"skip  {doc}:{line}: faultline {cmd}  ({why})")
                    skipped += 1
                    for k, a in enumerate(argv[:-1]):
                        if a in ("--out", "-o", "--db", "--dir"):
                            missing[argv[k + 1]] = line
                    continue
                if argv and argv[0] in ("simulate", "sweep") and not any(
                        a.startswith("--replicas") or a.startswith("run.replicas") for a in argv):
                    argv += ["--replicas", "2"]
                if cmd in done:
                    rc, text = done[cmd]
                else:
                    try:
                        p = subprocess.run([binary] + argv, cwd=work, env=env, capture_output=True, text=True,
                                           timeout=300)
                        rc, text = p.returncode, p.stdout + p.stderr
                    except subprocess.TimeoutExpired:
                        rc, text = -1, "(killed after 300 s)"
                    if argv and argv[0] in BARE:
                        done[cmd] = (rc, text)
                ran += 1
                problem = None
                if rc != expect:
                    problem = f"exit {rc}, the doc says {expect}: {text.strip().splitlines()[-1] if text.strip() else ''}"
                elif first and expect == 0:
                    want = words(first)[:4]
                    have = words(text)
                    if want and not all(w in have for w in want):
                        problem = f"its output no longer shows '{first[:80]}'"
                if problem:
                    failed += 1
                    print(f"FAIL  {doc}:{line}: faultline {cmd}\n      {problem}")
                else:
                    print(f"ok    {doc}:{line}: faultline {cmd}")
        finally:
            shutil.rmtree(work, ignore_errors=True)
    print(f"{ran} commands run, {failed} failed, {skipped} not run here")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
