"""Reports opened in a real browser (headless Chromium): they render, and hostile log text never runs.

Chromium is installed by .ci/run (Debian's package). On a developer machine without it the tests are
skipped with the reason; under CI (CI=true) a missing browser is a failure, not a skip.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from helpers import CDF_TABLE, SAMPLES, cdf, coup, stake_row, write_bundle
from typer.testing import CliRunner

from auditor.cli import app

pytestmark = pytest.mark.browser
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
ARTEFACTS = Path(__file__).resolve().parent.parent / "reports" / "test-artifacts"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--hide-scrollbars", "--virtual-time-budget=3000"]
PAYLOAD = "<img src=x onerror=\"document.title='PWNED'\"><script>document.title='PWNED'</script>"

if CHROMIUM is None:
    if os.environ.get("CI"):
        pytest.fail("chromium is not installed: .ci/run must install it (apt-get install chromium)", pytrace=False)
    pytest.skip("chromium not installed (apt-get install chromium)", allow_module_level=True)


def chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    cmd = [str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, list[str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, [name for name, _ in attrs]))


def _elements(html: str) -> list[tuple[str, list[str]]]:
    """Every element of the rendered DOM with its attribute names."""
    parser = _Tags()
    parser.feed(html)
    return parser.found


def _console_errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "CONSOLE" in line and re.search(r"Uncaught|Refused|Error", line)]


def test_sample_report_renders_with_a_screenshot(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert CliRunner().invoke(app, ["audit", str(SAMPLES / "casino-month"), "--out", str(out)]).exit_code == 1
    page = (out / "report.html").resolve().as_uri()
    dom = chromium(tmp_path, "--dump-dom", page)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert 'id="verdict"' in dom.stdout and "NO CONFORME" in dom.stdout and "<svg" in dom.stdout
    assert _console_errors(dom.stderr) == []
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTEFACTS / "casino-month-report.png"
    shot.unlink(missing_ok=True)
    result = chromium(tmp_path, "--window-size=1280,2200", f"--screenshot={shot}", page)
    assert result.returncode == 0 and shot.stat().st_size > 20_000


def test_hostile_player_id_does_not_execute(tmp_path: Path) -> None:
    table = CDF_TABLE | {"table_id": PAYLOAD}
    coups = [coup("C1", table_id=PAYLOAD, player_id=PAYLOAD, banker_id=PAYLOAD, players_seated=2)]
    bundle = write_bundle(tmp_path / "b", cdf(coups, [stake_row("S1", player=PAYLOAD, amount=100)], table=table))
    out = tmp_path / "out"
    CliRunner().invoke(app, ["audit", str(bundle), "--out", str(out), "--lang", "en"])
    page = (out / "report.html").resolve().as_uri()
    dom = chromium(tmp_path, "--dump-dom", page)
    assert dom.returncode == 0
    title = re.search(r"<title>(.*?)</title>", dom.stdout, re.S)
    assert title and "PWNED" not in title.group(1)
    tags = _elements(dom.stdout)
    assert not [t for t, _ in tags if t == "script"]
    assert not [a for _, attrs in tags for a in attrs if a.startswith("on")]
    assert "&lt;img src=x onerror=" in dom.stdout  # shown to the reader as text
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    chromium(tmp_path, "--window-size=1280,1600", f"--screenshot={ARTEFACTS / 'hostile-report.png'}", page)
