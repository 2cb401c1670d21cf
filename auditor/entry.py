"""The `auditor` command's entry point (and `python -m auditor`'s): the process's allocators are set
up before the first import that starts a thread or loads Arrow (`memory.before_imports`), then the
command line runs."""

from __future__ import annotations

from auditor.memory import before_imports


def main() -> None:
    before_imports()
    from auditor.cli import main as command_line  # numpy and pyarrow start threads as they are imported

    command_line()
