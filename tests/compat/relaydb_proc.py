"""Starting and stopping a real relaydb process for tests.

Invariant: a Server either answers ping on 127.0.0.1:port or start()
raised with the log tail; stop() never leaves the process running.
"""

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from pymongo import MongoClient
from pymongo.errors import PyMongoError

REPO_ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 20.0
LOG_TAIL_LINES = 40


class Server:
    """A running relaydb process on 127.0.0.1:port."""

    def __init__(self, binary, workdir, dbpath=None):
        self.binary = binary
        self.workdir = Path(workdir)
        self.dbpath = Path(dbpath) if dbpath else self.workdir / "db"
        self.log_path = self.workdir / "relaydb.log"
        self.host = "127.0.0.1"
        self.port = None
        self.proc = None
        self._log = None

    @property
    def uri(self):
        return f"mongodb://{self.host}:{self.port}/?directConnection=true"

    def start(self):
        """Starts the process; retries with a new port if it dies early."""
        last = None
        for _ in range(3):
            self.port = free_port()
            self.dbpath.mkdir(parents=True, exist_ok=True)
            self._log = open(self.log_path, "ab")
            self.proc = subprocess.Popen(
                [self.binary, "serve", "--port", str(self.port),
                 "--bind_ip", self.host, "--dbpath", str(self.dbpath)],
                stdout=self._log, stderr=subprocess.STDOUT,
                start_new_session=True)
            try:
                self.wait_ready()
                return
            except RuntimeError as exc:
                last = exc
                self.stop()
        raise RuntimeError(f"relaydb did not start: {last}\n{self.log_tail()}")

    def wait_ready(self):
        deadline = time.monotonic() + START_TIMEOUT_S
        err = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"exited with status {self.proc.returncode}")
            try:
                with MongoClient(self.uri, serverSelectionTimeoutMS=500,
                                 connectTimeoutMS=500) as c:
                    c.admin.command("ping")
                return
            except PyMongoError as exc:
                err = exc
                time.sleep(0.1)
        raise RuntimeError(f"no ping reply within {START_TIMEOUT_S}s: {err}")

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def kill9(self):
        """SIGKILL: no shutdown path runs, as in a power cut."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=5)
        self.stop()

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        if self._log is not None:
            self._log.close()
            self._log = None

    def log_tail(self, n=LOG_TAIL_LINES):
        try:
            lines = self.log_path.read_text(errors="replace").splitlines()
        except OSError:
            return "(no server log)"
        return "\n".join(lines[-n:])


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def relaydb_binary(tmpdir):
    """RELAYDB_BIN if set, else a fresh `go build` of ./cmd/relaydb."""
    env_bin = os.environ.get("RELAYDB_BIN")
    if env_bin:
        if not os.access(env_bin, os.X_OK):
            raise RuntimeError(f"RELAYDB_BIN={env_bin} is not an executable")
        return env_bin
    out = os.path.join(tmpdir, "relaydb")
    go = shutil.which("go")
    if go is None:
        raise RuntimeError("RELAYDB_BIN unset and no `go` on PATH to build it")
    subprocess.run([go, "build", "-o", out, "./cmd/relaydb"],
                   cwd=REPO_ROOT, check=True)
    return out
