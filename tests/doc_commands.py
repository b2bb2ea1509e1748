#!/usr/bin/env python3
"""The documents are tests (issue 44): every command shown in README.md and docs/*.md runs, as
written, in a scratch copy of the repository, and does what the document implies.

What is a command. In a fenced block with no info string or with `sh`, `bash`, `console` or
`shell` (```text, ```toml, ```ipu and the rest are never run):
- a line `$ COMMAND`: the lines after it, up to the next `$` line or the block's end, are its
  output as the document shows it;
- in a block with no `$` line: in ```sh and ```bash every line but blanks and comments, in the
  others a line that starts with a command word (`iputrain`, `build/iputrain`, `mpirun`, `bash`,
  `cmake`, `cpack`, `python3`, `cd`, `cp`, `mkdir`, `printf`, `echo`, `head`, `cat`): a command
  whose output the document does not show.
docs/walkthrough.md is left to docs.walkthrough (tests/cli/walkthrough_check.py), which runs its
blocks the same way and checks what the page promises of them.
A command whose comment holds `[not run: REASON]` is not run; the mark is what readers see. Any
other command runs, so a new one is tested unless its author marks it.

How it runs. Each document gets its own scratch folder: a copy of the repository's files (not its
tests, its .git or its build trees), `build` linked to BUILD_DIR, and `iputrain` on the PATH. The
document's commands run there in order, each with `bash -c` (a pipeline's status is its last
command's, as in a shell), so the files one writes are there for the next. Open MPI may run as
root (CI's containers are root). Open MPI is not told to yield while it waits: among CI's other
tests, the README's two-process run took 74 s with mpi_yield_when_idle against 32 s without (2 s on
an idle machine: each of its 1,875 updates waits for the other process to be scheduled).

What is checked.
- The exit status: non-zero exactly when the output the document shows holds an `error:` line.
- The output: every line the document shows, with each number standing for any number, a run of
  blanks for any run of blanks and `…` for any text (a line of it alone: any lines), appears in the command's output (stdout and stderr) in the same order.
A failure names the document, the line and the command, and shows what ran.

Usage: doc_commands.py SOURCE_DIR BUILD_DIR WORK_DIR [DOC...]   (DOC: paths under SOURCE_DIR;
default README.md and every docs/*.md)
       doc_commands.py --list SOURCE_DIR [DOC...]                lists the commands found
"""
import os
import re
import shutil
import subprocess
import sys
import time

RUN_FENCES = {"", "sh", "bash", "console", "shell"}
COMMAND_WORDS = ("iputrain", "build/iputrain", "mpirun", "bash", "cmake", "cpack", "python3", "cd", "cp", "mkdir",
                 "printf", "echo", "head", "cat")
SHELL_FENCES = {"sh", "bash"}
LEFT_TO_OTHERS = {"docs/walkthrough.md": "docs.walkthrough"}
NOT_RUN = re.compile(r"\[not run: ([^\]]+)\]")
NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?")
TIMEOUT = 600


class Command:
    def __init__(self, doc, line, text, shown):
        self.doc, self.line, self.text, self.shown = doc, line, text, shown  # shown: None or output lines

    def where(self):
        return f"{self.doc}:{self.line}"


def strip_comment(line):
    """The command without its trailing `# comment` (a `#` after a blank, outside quotes)."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i].rstrip(), line[i:]
    return line.rstrip(), ""


def is_command(line):
    word = line.split(None, 1)[0] if line.split() else ""
    return word in COMMAND_WORDS


def commands_of(doc, text):
    """The commands of one document, in order."""
    found = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)```(\S*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        indent, fence = m.group(1), m.group(2)
        body = []
        j = i + 1
        while j < len(lines) and not re.match(r"^\s*```\s*$", lines[j]):
            body.append((j + 1, lines[j][len(indent):] if lines[j].startswith(indent) else lines[j].lstrip()))
            j += 1
        if fence in RUN_FENCES:
            dollar = any(line.startswith("$ ") for _, line in body)
            current = None
            for number, line in body:
                if line.startswith("$ "):
                    current = Command(doc, number, line[2:], [])
                    found.append(current)
                elif current is not None:
                    current.shown.append(line)
                elif not dollar and fence in SHELL_FENCES and line.strip() and not line.lstrip().startswith("#"):
                    found.append(Command(doc, number, line, None))
                elif not dollar and is_command(line):
                    found.append(Command(doc, number, line, None))
        i = j + 1
    return found


def normalise(line):
    """Numbers as `#`, runs of blanks as one (a table's columns widen with its numbers)."""
    return re.sub(r"[ \t]+", " ", NUMBER.sub("#", line.rstrip()))


def shown_appears(shown, output):
    """Every shown line, numbers as wildcards and `…` as any lines, in order in the output."""
    want = [normalise(s) for s in shown]
    while want and not want[-1].strip():
        want.pop()
    have = [normalise(h) for h in output.split("\n")]
    at = 0
    for w in want:
        if w.strip() == "…":
            continue
        pattern = re.escape(w.strip()).replace(re.escape("…"), ".*")
        while at < len(have) and not re.fullmatch(pattern, have[at].strip()):
            at += 1
        if at == len(have):
            return w
        at += 1
    return None


def scratch(source, build, work, doc):
    folder = os.path.join(work, re.sub(r"[^A-Za-z0-9_.-]", "_", doc))
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    for entry in os.listdir(source):
        path = os.path.join(source, entry)
        if entry in (".git", "tests") or os.path.exists(os.path.join(path, "CMakeCache.txt")):
            continue
        if os.path.samefile(path, build) or os.path.abspath(path) == os.path.abspath(work):
            continue
        if os.path.isdir(path):
            shutil.copytree(path, os.path.join(folder, entry), symlinks=True)
        else:
            shutil.copy2(path, os.path.join(folder, entry))
    os.symlink(build, os.path.join(folder, "build"))
    return folder


def run_doc(source, build, work, doc, env):
    text = open(os.path.join(source, doc), encoding="utf-8").read()
    commands = commands_of(doc, text)
    folder = None
    failures, ran, marked = [], 0, 0
    for c in commands:
        command, comment = strip_comment(c.text)
        if NOT_RUN.search(comment) or NOT_RUN.search(c.text):
            marked += 1
            continue
        if folder is None:
            folder = scratch(source, build, work, doc)
        ran += 1
        try:
            started = time.monotonic()
            r = subprocess.run(["bash", "-c", command], cwd=folder, stdin=subprocess.DEVNULL, env=env, capture_output=True,
                               text=True, timeout=TIMEOUT)
            output, status = r.stdout + r.stderr, r.returncode
            print(f"  {c.where()}: exit {status} after {time.monotonic() - started:.1f} s: {command[:100]}")
        except subprocess.TimeoutExpired:
            failures.append(f"{c.where()}: `{command}` did not finish in {TIMEOUT} s")
            continue
        expects_error = c.shown is not None and any(re.search(r"(^|: )error:", s) for s in c.shown)
        problem = None
        if expects_error and status == 0:
            problem = "exits 0, but the document shows an error"
        elif not expects_error and status != 0:
            problem = f"exits {status}"
        elif c.shown:
            missing = shown_appears(c.shown, output)
            if missing is not None:
                problem = f"the output has no line like the document's `{missing.strip()}`"
        if problem:
            tail = "\n".join("    | " + line for line in output.rstrip().split("\n")[-15:])
            failures.append(f"{c.where()}: `{command}` {problem}\n{tail}")
    return failures, ran, marked


def all_docs(source):
    return ["README.md"] + sorted(
        os.path.join("docs", f) for f in os.listdir(os.path.join(source, "docs")) if f.endswith(".md"))


def list_commands(source, docs):
    for doc in docs:
        for c in commands_of(doc, open(os.path.join(source, doc), encoding="utf-8").read()):
            mark = "skip" if NOT_RUN.search(c.text) else ("out " if c.shown else "run ")
            print(f"{mark} {c.where()}: {c.text}")


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "--list":
        source = os.path.abspath(sys.argv[2])
        docs = sys.argv[3:] or all_docs(source)
        return list_commands(source, docs)
    if len(sys.argv) < 4:
        sys.exit(__doc__.split("Usage: ")[1])
    source, build, work = (os.path.abspath(p) for p in sys.argv[1:4])
    docs = sys.argv[4:] or [d for d in all_docs(source) if d not in LEFT_TO_OTHERS]
    os.makedirs(work, exist_ok=True)
    bin_dir = os.path.join(work, "bin")
    os.makedirs(bin_dir, exist_ok=True)
    link = os.path.join(bin_dir, "iputrain")
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(os.path.join(build, "iputrain"), link)
    env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""), OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1",
               OMPI_MCA_btl_vader_single_copy_mechanism="none")
    all_failures, total_ran, total_marked = [], 0, 0
    for doc in docs:
        failures, ran, marked = run_doc(source, build, work, doc, env)
        print(f"{doc}: {ran} commands ran, {marked} marked not run, {len(failures)} failed")
        all_failures += failures
        total_ran += ran
        total_marked += marked
    for f in all_failures:
        print("FAIL " + f)
    print(f"{total_ran} commands ran, {total_marked} marked not run, {len(all_failures)} failed")
    sys.exit(1 if all_failures else 0)


if __name__ == "__main__":
    main()
