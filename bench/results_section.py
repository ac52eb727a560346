"""results_section.py — replace one "## heading" section of bench/RESULTS.md.

RESULTS.md is shared by the benchmark scripts (run.sh, sizes.sh, ranks.sh):
each one rewrites only its own sections and keeps every other section as it
is. A section runs from its "## " heading line up to the next "## " line (or
the end of the file); a heading not yet in the file is appended at the end; a
missing file is started with a short header.

The scripts' embedded Python imports it (they run python3 with the bench
directory on PYTHONPATH):

    from results_section import update
    update(results, heading, section)

or from the shell, with the section's text on stdin:

    python3 bench/results_section.py RESULTS_FILE HEADING <section.md
"""
import sys

HEADER = "# tracefold benchmark results\n\nEach section is written by the benchmark named in it; rerun it to refresh.\n"


def replace(text, heading, section):
    """text with the section under the line `heading` replaced by `section` (which starts with that
    heading), or with `section` appended if there is no such line"""
    lines = text.splitlines(keepends=True)
    start = next((i for i, l in enumerate(lines) if l.rstrip("\n") == heading), None)
    if start is None:
        return text.rstrip("\n") + "\n\n" + section
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    rest = "".join(lines[end:])
    return "".join(lines[:start]) + section + ("\n" + rest if rest else "")


def update(results, heading, section, formerly=None):
    """rewrite the file `results` with its section `heading` replaced by `section`; if the file has no
    line `heading` but has the line `formerly` (the section's earlier name), that section is replaced"""
    try:
        text = open(results).read()
    except FileNotFoundError:
        text = HEADER
    if formerly is not None:
        heads = [l.rstrip("\n") for l in text.splitlines()]
        if formerly in heads and heading not in heads:
            heading = formerly
    open(results, "w").write(replace(text, heading, section))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: results_section.py RESULTS_FILE HEADING <SECTION")
    update(sys.argv[1], sys.argv[2], sys.stdin.read())
