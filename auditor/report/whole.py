"""Output files written whole or not at all. Each output is written to a hidden file beside it
(`.report.html.partial`) that replaces it once whole, by a rename, which a reader of the folder sees
at once or not at all: an audit that fails while writing never leaves a file cut short for an
inspector or a CI job to take for a whole one. An audit stopped by force (a kill, a power cut) may
leave the hidden file behind, never a cut-short output under the output's own name."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import BinaryIO, NoReturn


def partial_of(path: Path) -> Path:
    """The hidden file `path` is written to until it is whole."""
    return path.with_name(f".{path.name}.partial")


class Whole:
    """A file for `path`'s bytes, opened as its partial file: `done` closes it and puts it in `path`'s
    place; `drop` closes and removes it, leaving whatever `path` held."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.partial = partial_of(path)
        self.file: BinaryIO = self.partial.open("wb")

    def done(self) -> None:
        try:
            self.file.close()  # a write the buffer held fails here (a full disk), before the rename
            os.replace(self.partial, self.path)
        except BaseException as exc:
            self.fail(exc)

    def drop(self) -> None:
        # Called as an error is raised: a close that fails too (the same full disk) must not hide it.
        with suppress(OSError):
            self.file.close()
        self._remove()

    def fail(self, exc: BaseException) -> NoReturn:
        """Drop the file and raise `exc`; an OSError that names no file, as a write's on a full disk
        does ("No space left on device"), raised as one naming the output it was writing."""
        self.drop()
        if isinstance(exc, OSError) and exc.filename is None and exc.errno is not None:
            raise OSError(exc.errno, exc.strerror, str(self.path)) from exc
        raise exc

    def _remove(self) -> None:
        with suppress(OSError):  # the error being raised is the one to report, not this one's
            self.partial.unlink(missing_ok=True)


@contextmanager
def written_whole(path: Path) -> Iterator[BinaryIO]:
    """A file to write `path`'s bytes into, which becomes `path` when the block ends without an error
    and is removed when it raises one (`Whole.fail`: an error of the write names `path`)."""
    whole = Whole(path)
    try:
        yield whole.file
    except BaseException as exc:
        whole.fail(exc)
    whole.done()


def remove_outputs(paths: list[Path]) -> None:
    """Remove `paths` where they are files (an earlier audit's outputs this one did not finish), so
    that an audit that did not finish leaves no output of another audit beside its own. A path that
    is not a file (a directory, which may be what made the audit fail) is left as it is."""
    for path in paths:
        if path.is_file() or path.is_symlink():
            with suppress(OSError):
                path.unlink()
