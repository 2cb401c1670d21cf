"""The `auditor` command's entry point (and `python -m auditor`'s): the process's allocator is set
up before the first import that starts a thread (`memory.one_arena`), then the command line runs."""

from __future__ import annotations

from auditor.memory import one_arena


def main() -> None:
    one_arena()
    from auditor.cli import main as command_line  # numpy and pyarrow start threads as they are imported

    command_line()
