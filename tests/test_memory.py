"""The process's memory policy (`auditor.memory`): a whole audit keeps freed memory for reuse, an
audit by partition hands it back between games. What it changes is speed and peak memory, which the
benchmark measures; these tests hold that the policy takes effect where it should, so that a wrong
mallopt parameter cannot turn it off unnoticed. That findings do not depend on it: every audit by
partition is compared with the whole audit (tests/test_by_partition.py)."""

from __future__ import annotations

import platform

import pyarrow as pa
import pytest

from auditor import memory

GLIBC = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"


@pytest.fixture
def restored_pool(monkeypatch: pytest.MonkeyPatch):
    """The test process's Arrow pool and policy flag as they were (mallopt's settings stay: they
    change no result)."""
    pool = pa.default_memory_pool()
    monkeypatch.setattr(memory, "_keeping", False)
    yield
    pa.set_memory_pool(pool)


@pytest.mark.skipif(not GLIBC, reason="the policy needs glibc's mallopt")
def test_a_whole_audit_keeps_freed_memory_with_glibc(restored_pool: None) -> None:
    assert memory.keep_freed_memory() is True
    assert pa.default_memory_pool().backend_name == "system"  # Arrow allocates from the same heap
    assert memory._keeping


def test_between_games_memory_is_handed_back_unless_kept(restored_pool: None, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(memory, "release_unused_memory", lambda: calls.append("released"))
    memory.release_between_games()
    assert calls == ["released"]
    monkeypatch.setattr(memory, "_keeping", True)
    memory.release_between_games()
    assert calls == ["released"]

