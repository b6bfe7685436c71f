"""pytest plugin for scripts/pymongo-suite: one JSON line per test.

Loaded with ``-p relaydb_report``; writes to $RELAYDB_PYSUITE_REPORT. Each
line is {"id", "outcome", "why", "secs"} with outcome one of passed,
failed (the test body failed), error (setup or teardown failed), skipped,
xfailed, xpassed (pymongo's own xfail markers). Lines are flushed as tests
finish, so a run cut short by the total bound still reports what ran.
"""

from __future__ import annotations

import json
import os

_state: dict[str, dict] = {}
_out = None


def _why(report) -> str:
    if report.passed:
        return ""
    if report.skipped and isinstance(report.longrepr, tuple):
        return str(report.longrepr[2])[:300]
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        return str(crash.message).splitlines()[0][:300] if crash.message else ""
    return str(report.longrepr).strip().splitlines()[-1][:300] if report.longrepr else ""


def pytest_configure(config):
    global _out
    path = os.environ.get("RELAYDB_PYSUITE_REPORT")
    if path:
        _out = open(path, "a", encoding="utf-8")  # noqa: SIM115 - closed at unconfigure


def pytest_unconfigure(config):
    if _out is not None:
        _out.close()


def pytest_runtest_logreport(report):
    st = _state.setdefault(report.nodeid, {"outcome": None, "why": "", "secs": 0.0})
    st["secs"] += getattr(report, "duration", 0.0) or 0.0
    wasxfail = hasattr(report, "wasxfail")
    if report.when == "call":
        if wasxfail:
            st["outcome"] = "xfailed" if report.skipped else "xpassed"
        elif report.failed:
            st["outcome"], st["why"] = "failed", _why(report)
        elif report.skipped:
            st["outcome"], st["why"] = "skipped", _why(report)
        else:
            st["outcome"] = st["outcome"] or "passed"
    elif report.failed and st["outcome"] != "failed":  # setup or teardown
        st["outcome"], st["why"] = "error", f"{report.when}: {_why(report)}"
    elif report.when == "setup" and report.skipped:
        st["outcome"] = "xfailed" if wasxfail else "skipped"
        st["why"] = _why(report)
    if report.when == "teardown" and _out is not None:
        line = {"id": report.nodeid, "outcome": st["outcome"] or "error", "why": st["why"],
                "secs": round(st["secs"], 3)}
        _out.write(json.dumps(line) + "\n")
        _out.flush()
        _state.pop(report.nodeid, None)


def pytest_collectreport(report):
    """A test file that fails to import counts as one error (its tests never run)."""
    if report.failed and _out is not None:
        line = {"id": report.nodeid, "outcome": "error", "why": f"collect: {_why(report)}", "secs": 0.0}
        _out.write(json.dumps(line) + "\n")
        _out.flush()
