#!/usr/bin/env python3
"""Adding a row is its file and its list line (issue 48): for each of the project's tables (ops,
optimizers, learning-rate schedules, pipeline schedules, data sources, CLI commands and plain config
keys), checks that
(a) every line of the table's list has its file (the one product file that defines the row,
    `const OptimizerDef kSgdOptimizer{...}`; for a plain key, the files that read `plain.FIELD`,
    at least one), every row defined in a product file has its list line, and no file
    defines two rows; and
(b) no other product file (core/ frontend/ planner/ engine/ api/ cli/ include/; comments not read)
    spells a row's name as a string literal ("sgd", "csv" or "csv:...", "checkpoint.keep_best_min_delta")
    or names its row symbol (kSgdOptimizer, ScheduleKind::Sequential, plain.checkpoint_...): the
    knowledge of a row lives in the row, so that adding one edits nothing else. An op's kind counts
    where it is tested (==, !=, case), an op's name from planner/ on, a command's name in cli/ only
    (see TABLES).
A use of a row outside it that is legitimate (a key's default value, a word a row shares with
another meaning) is one line of tests/table_rows_allow.txt, `path: name: reason`; an entry that
matches nothing fails as stale.
Usage: table_rows_lint.py SOURCE_DIR [--allow FILE] [FILE...] (FILEs relative to SOURCE_DIR, e.g. a
probe: read as product files in every folder's scope, their list lines added to the lists, and only
their failures reported)"""
import os
import re
import sys

import lint_common

PRODUCT = ("core", "frontend", "planner", "engine", "api", "cli", "include")
ALLOW = os.path.join(os.path.dirname(os.path.abspath(__file__)), "table_rows_allow.txt")
TOKEN = re.compile(r"//[^\n]*|\"(?:\\.|[^\"\\\n])*\"|(?<![\w'])'(?:\\.|[^'\\\n])+'")


class Table:
    """One table: its list (a header of MACRO(Name, ...) lines), the type its rows are defined
    with, the row symbol's spelling, the enum the list makes (if any), the folders where a string
    literal of a row's name counts, and whether "name:..." counts too (a data spec)."""

    def __init__(self, what, list_file, macro, def_type, symbol, enum=None, literals=PRODUCT, prefix=False):
        self.what, self.list_file, self.macro, self.def_type = what, list_file, macro, def_type
        self.symbol, self.enum, self.literals, self.prefix = symbol, enum, literals, prefix


# Ops are the IR's words: a backward rule or a builtin builds another op's node (g.add(OpKind::Reshape,
# ...)), which adding an op does not edit; what must not live outside the row is a test of the kind
# (==, != or a case label, anywhere in the product, as op_name_lint holds planner/ to cli/ to it),
# and the name spelled by a stage after the frontend, which meets ops as nodes. The commands are the
# CLI's table: below cli/ a "train" or a "plan" is the data split or the Plan, never a command.
TABLES = (
    Table("op", "core/ops/op_list.hpp", "IPUTRAIN_OP", "OpDef", "k{}Op", enum="OpKind",
          literals=("planner", "engine", "api", "cli", "include")),
    Table("optimizer", "core/optim/optimizer_list.hpp", "IPUTRAIN_OPTIMIZER", "OptimizerDef", "k{}Optimizer"),
    Table("learning-rate schedule", "core/optim/lr_schedule_list.hpp", "IPUTRAIN_LR_SCHEDULE", "LrScheduleDef",
          "k{}Schedule"),
    Table("pipeline schedule", "core/pipeline_schedules/schedule_list.hpp", "IPUTRAIN_SCHEDULE", "ScheduleDef",
          "k{}Schedule", enum="ScheduleKind"),
    Table("data source", "core/data/source_list.hpp", "IPUTRAIN_DATA_SOURCE", "DataSourceDef", "k{}Source",
          prefix=True),
    Table("command", "cli/command_list.hpp", "IPUTRAIN_COMMAND", "CommandDef", "k{}Command", literals=("cli",)),
)
OP_TEST = r"(?:(?:==|!=)\s*(?:\w+::)*{0}\b|(?<!\w){0}\s*(?:==|!=)|\bcase\s+(?:\w+::)*{0}\b)"
PLAIN_KEYS = "core/public/iputrain/plain_keys.hpp"


class Source:
    """A product file read once: its code with comments and strings blanked (line numbers kept), and
    its string literals as (line, text)."""

    def __init__(self, src, rel, probe=False):
        self.probe = probe
        with open(os.path.join(src, rel), encoding="utf-8", errors="replace") as f:
            text = lint_common.blank_comments(f.read())
        self.rel, self.literals, code, last, line = rel, [], [], 0, 1
        for m in TOKEN.finditer(text):
            code.append(text[last:m.start()])
            line += text[last:m.start()].count("\n")
            token = m.group(0)
            if token.startswith('"'):
                self.literals.append((line, token[1:-1]))
                code.append('""')
            elif token.startswith("'"):
                code.append("' '")
            last = m.end()
        code.append(text[last:])
        self.code = "".join(code)
        self.text = text

    def line_of(self, offset, text=None):
        return (text or self.code).count("\n", 0, offset) + 1


def list_lines(sources, table):
    """The names on the table's list (and on the lines of a probe given on the command line that
    are list lines), as (name, "path:line")."""
    pattern = re.compile(r"^\s*" + table.macro + r"\(\s*(\w+)", re.M)
    out = []
    for rel in [table.list_file] + sources["probes"]:
        text = sources["files"][rel].text
        out += [(m.group(1), f"{rel}:{text.count(chr(10), 0, m.start()) + 1}") for m in pattern.finditer(text)]
    return out


def row_name(source, start):
    """The row's name: `.name = "..."`, or else the first string literal of its definition."""
    line = source.line_of(start, source.text)
    end = source.text.find("\n}", start)
    named = re.search(r'\.name\s*=\s*"([^"]*)"', source.text[start:end])
    if named:
        return named.group(1)
    later = [text for number, text in source.literals if number >= line]
    return later[0] if later else None


class Row:
    """A row: its table, its name, the patterns that name its symbol and the file that holds it
    (HOME; a plain key's are the files that read it, a list)."""

    def __init__(self, table, name, symbols, home):
        self.table, self.name = table, name
        self.homes = home if isinstance(home, list) else [home]
        self.home = self.homes[0]
        self.symbols = [(symbol, re.compile(pattern)) for symbol, pattern in symbols]


def symbol_patterns(table, name):
    symbol = table.symbol.format(name)
    out = [(symbol, r"(?<!\w)" + symbol + r"\b")]
    if table.enum == "OpKind":
        out.append((f"{table.enum}::{name}", OP_TEST.format(f"{table.enum}::{name}")))
    elif table.enum:
        out.append((f"{table.enum}::{name}", rf"(?<!\w){table.enum}::{name}\b"))
    return out


def check_table(table, sources, failures):
    """Part (a) for TABLE; returns its rows."""
    listed = list_lines(sources, table)
    defined = {}
    pattern = re.compile(r"^const\s+" + table.def_type + r"\s+k(\w+?)" + table.symbol[3:] + r"\s*[{=]", re.M)
    for rel, source in sources["files"].items():
        if table.def_type not in source.text:
            continue
        found = [(m.group(1), m.start()) for m in pattern.finditer(source.text)]
        if len(found) > 1:
            failures.append(f"{rel}: defines {len(found)} {table.what} rows ({', '.join(n for n, _ in found)}); "
                            "one row per file")
        for name, start in found:
            defined[name] = (rel, row_name(source, start), source.line_of(start, source.text))
    rows = []
    for name, where in listed:
        if name not in defined:
            failures.append(f"{where}: the {table.what} {name} has no file (no product file "
                            f"defines {table.symbol.format(name)}); add its file or remove the line")
            continue
        rows.append(Row(table, defined[name][1], symbol_patterns(table, name), defined[name][0]))
    names = {name for name, _ in listed}
    for name, (rel, _, number) in sorted(defined.items()):
        if name not in names:
            failures.append(f"{rel}:{number}: the {table.what} {table.symbol.format(name)} is defined here but "
                            f"{table.list_file} has no line for it; add {table.macro}({name}) there")
    return rows


PLAIN_TABLE = Table("plain key", PLAIN_KEYS, "X", None, None)


def plain_key_rows(sources, failures):
    """Part (a) for the plain keys: each line of IPUTRAIN_PLAIN_KEYS is read by a consumer; those that
    read it are its files (a key the rules check and the engine runs is read by both; a key another
    line's DERIVE reads is read by the header). A line whose
    EFFECT is no_effect_here(...) or refused_here(...) is read by no file: a reader would make the
    key act while the docs and the warning say it does not."""
    header = sources["files"][PLAIN_KEYS]
    block = re.search(r"#define IPUTRAIN_PLAIN_KEYS\(X\)(.*?)\n\n", header.text, re.S)
    text = block.group(1) if block else ""
    lines = list(re.finditer(r"\bX\(\s*(\w+)\s*,\s*\"([\w.]+)\"\s*,", text))
    ends = [m.start() for m in lines[1:]] + [len(text)]
    line_texts = [text[m.start():end] for m, end in zip(lines, ends)]
    rows = []
    for i, m in enumerate(lines):
        field, key = m.group(1), m.group(2)
        inert = re.search(r"\b(no_effect_here|refused_here)\(", line_texts[i]) is not None
        read = re.compile(r"\bplain\." + field + r"\b")
        consumers = sorted(rel for rel, s in sources["files"].items()
                           if rel != PLAIN_KEYS and field in s.code and read.search(s.code))
        # Another line's DERIVE may read it (data.prefetch_depth reads prefetch_data_streams).
        if any(read.search(other) for j, other in enumerate(line_texts) if j != i):
            consumers.append(PLAIN_KEYS)
        where = f"{PLAIN_KEYS}:{header.line_of(block.start(1) + m.start(), header.text)}"
        for rel in consumers if inert else []:
            source = sources["files"][rel]
            failures.append(f"{rel}:{source.line_of(read.search(source.code).start())}: reads `plain.{field}`, but "
                            f"the line of {key} ({where}) says it has no effect or is refused; give the line the "
                            f"effect the key has (Runs or Models), or stop reading it")
        if not inert and not consumers:
            failures.append(f"{where}: the plain key {key} is read "
                            f"by no file; read `plain.{field}` where the key acts, or remove its line")
        rows.append(Row(PLAIN_TABLE, key, [(field, r"(?<!\w)" + field + r"\b")], consumers or [PLAIN_KEYS]))
    return rows


def spellings(source, row):
    """Where SOURCE spells ROW's name as a string literal ("name", or "name:..." for a data spec) in
    a folder where that counts, or names one of its symbols: (line, spelled, is_literal) triples."""
    hits = []
    if source.probe or source.rel.split("/")[0] in row.table.literals:
        hits = [(line, f'"{text}"', True) for line, text in source.literals
                if text == row.name or (row.table.prefix and text.startswith(row.name + ":"))]
    for symbol, pattern in row.symbols:
        if symbol in source.code:
            hits += [(source.line_of(m.start()), symbol, False) for m in pattern.finditer(source.code)]
    return hits


def read_allow(path, failures):
    """The allow file's entries, {(path, name): line}; a path of * allows the name's string literals
    everywhere (a word the row shares with another meaning), never its symbols."""
    allow = {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = [p.strip() for p in line.split(":", 2)]
            if len(parts) < 3 or not parts[2]:
                failures.append(f"{path}:{number}: write `path: name: reason`, with the reason")
                continue
            allow[(parts[0], parts[1])] = number
    return allow


def unallowed(rows, sources, allow, failures):
    """Part (b): the spellings of ROWS outside their files that ALLOW does not name; returns the
    entries used."""
    used = set()
    for row in rows:
        for rel, source in sources["files"].items():
            if rel in row.homes or rel == row.table.list_file:
                continue
            for line, spelled, literal in spellings(source, row):
                for entry in ((rel, row.name), ("*", row.name) if literal else None):
                    if entry in allow:
                        used.add(entry)
                        break
                else:
                    failures.append(f"{rel}:{line}: spells the {row.table.what} {row.name} ({spelled}) outside its "
                                    f"row ({row.home}); read the row, or allow the use in the allow file")
    return used


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__.split("Usage: ")[1])
    allow_path = ALLOW
    if "--allow" in args:
        at = args.index("--allow")
        allow_path = args[at + 1]
        del args[at:at + 2]
    src, probes = args[0], args[1:]
    files = {rel: Source(src, rel) for rel in lint_common.sources(src, PRODUCT)}
    files.update({rel: Source(src, rel, probe=True) for rel in probes})
    sources = {"src": src, "files": files, "probes": probes}
    failures = []
    allow = read_allow(allow_path, failures)
    rows = [row for table in TABLES for row in check_table(table, sources, failures)]
    rows += plain_key_rows(sources, failures)
    used = unallowed(rows, sources, allow, failures)
    for (rel, name), number in sorted(allow.items(), key=lambda item: item[1]):
        if (rel, name) not in used:
            failures.append(f"{allow_path}:{number}: stale: {rel} no longer spells {name}; remove the line")
    if probes:  # only what the given files break
        failures = [f for f in failures if f.split(":")[0] in probes]
    for failure in failures:
        print(failure)
    checked = len(probes) or len(files)
    print(f"table_rows_lint: {len(rows)} rows of {len(TABLES) + 1} tables, {checked} files, {len(failures)} failures")
    if failures:
        print("hint: adding a row is its file and its list line (docs/architecture.md), so nothing else may know "
              "it: ask the table, or allow a legitimate use in tests/table_rows_allow.txt with its reason")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
