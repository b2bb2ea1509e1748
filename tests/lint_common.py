"""What the source lints share (function_length.py, namespace_lint.py): the C++ files they walk, the
text with comments and raw strings blanked (line numbers kept), and the driver that checks each file
and prints the failures, a count and a hint."""
import os
import re
import sys


def sources(src, folders):
    """The C++ files under the given top-level folders, relative to SRC, in a stable order."""
    for top in folders:
        for root, dirs, files in os.walk(os.path.join(src, top)):
            dirs.sort()
            for name in sorted(files):
                if name.endswith((".cpp", ".hpp", ".h")):
                    yield os.path.relpath(os.path.join(root, name), src)


def blank_comments(text):
    """TEXT with block comments and raw strings replaced by as many newlines (a raw string by "")."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r'R"(\w*)\((.*?)\)\1"', lambda m: '""' + "\n" * m.group(0).count("\n"), text, flags=re.S)


def run(tool, folders, check, summary, hint):
    """Checks every file named after SOURCE_DIR on the command line, or every source file: CHECK(src,
    rel) returns the failures of one file; SUMMARY(files, failures) is the last line. Returns the exit
    status."""
    if len(sys.argv) < 2:
        sys.exit(f"usage: {tool} SOURCE_DIR [FILE...] (FILEs relative to SOURCE_DIR: only those)")
    src = sys.argv[1]
    failures = []
    checked = 0
    for rel in sys.argv[2:] or sources(src, folders):
        failures += check(src, rel)
        checked += 1
    for failure in failures:
        print(failure)
    print(summary(checked, len(failures)))
    if failures:
        print("hint: " + hint)
    return 1 if failures else 0
