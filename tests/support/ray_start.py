"""A Ray cluster started the way a user starts one (``ray get-auth-token --generate``, then
``ray start --head`` and ``ray start --address`` with RAY_AUTH_MODE=token), on 127.0.0.1 inside
private namespaces, for tests and benchmarks of ``harness run --executor ray --address``.

- Network: a namespace holding only the loopback interface, so no cluster traffic can leave it
  whatever the machine's interfaces are (its ports are private too: no clash with anything else).
- PID: the namespace's first process reaps orphans; when it dies (teardown, or the test process
  dying: parent-death signals chain it to this process) the kernel kills every process inside, so
  no Ray process survives. ``ray stop`` run inside sees only this namespace's processes.
- Files: a private HOME (the token in ``HOME/.ray/auth_token``) and RAY_TMPDIR (sessions, sockets,
  the address file), both in one temporary directory removed at teardown.
- Each worker node gets its own mount namespace, so a test can kill exactly that node's processes
  or change what that node sees at a path (a node without the corpus) without touching the others.

Needs root, util-linux's ``unshare``/``nsenter`` and the ``.[ray]`` extra; ``unavailable()`` says
what is missing.
"""
from __future__ import annotations

import ctypes
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
PORT = 6379

# The namespace's first process: bring loopback up (SIOCSIFFLAGS: IFF_UP|IFF_LOOPBACK|IFF_RUNNING),
# say so, then reap orphans for as long as it lives.
_HOLDER = r"""
import fcntl, os, socket, struct, time
s = socket.socket()
fcntl.ioctl(s, 0x8914, struct.pack("16sH14s", b"lo", 0x1 | 0x8 | 0x40, b""))
s.close()
print("ready", flush=True)
while True:
    try:
        os.wait()
    except ChildProcessError:
        time.sleep(0.2)
"""

# Give the namespace an outward-looking address (TEST-NET-1, on lo: no other interface exists) and a
# default route, as on a machine with a real interface: Ray then resolves "127.0.0.1" to it unless
# the driver keeps loopback addresses loopback. "del" removes the route again.
_OUTWARD = r"""
import ctypes, fcntl, socket, struct, sys
def sin(ip):
    return struct.pack("HH4s8x", socket.AF_INET, 0, socket.inet_aton(ip))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
if sys.argv[1] == "add":
    fcntl.ioctl(s, 0x8916, struct.pack("16s", b"lo:1") + sin("192.0.2.1"))        # SIOCSIFADDR
    fcntl.ioctl(s, 0x891C, struct.pack("16s", b"lo:1") + sin("255.255.255.255"))  # SIOCSIFNETMASK
dev = ctypes.create_string_buffer(b"lo")
route = struct.pack("L16s16s16sHhLPhPLLH", 0, sin("0.0.0.0"), sin("0.0.0.0"), sin("0.0.0.0"), 0x1, 0, 0, 0, 0,
                    ctypes.addressof(dev), 0, 0, 0)  # struct rtentry: default route, RTF_UP, dev lo
fcntl.ioctl(s, 0x890B if sys.argv[1] == "add" else 0x890C, route)  # SIOCADDRT / SIOCDELRT
"""


def unavailable() -> str | None:
    """Why a ``ray start`` cluster cannot be made here, or None."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        return "needs root on Linux (network, PID and mount namespaces)"
    for tool in ("unshare", "nsenter", "mount"):
        if not shutil.which(tool):
            return f"needs util-linux's {tool}"
    if not (BIN / "ray").is_file():
        return "needs the ray extra (pip install -e '.[ray]')"
    probe = subprocess.run(["unshare", "--net", "--pid", "--fork", "--mount-proc", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"cannot make network and PID namespaces here: {probe.stderr.strip()[:200]}"
    return None


def _die_with_parent() -> None:
    ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _ns_inode(pid: int, kind: str) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/{kind}")
    except OSError:
        return None


def _pids() -> list[int]:
    return [int(d) for d in os.listdir("/proc") if d.isdigit()]


class RayStartCluster:
    """A head and worker nodes made with the ``ray`` CLI, token authentication on, all on 127.0.0.1."""

    def __init__(self, port: int = PORT):
        self.port = port
        self.address = f"127.0.0.1:{port}"
        self.root = Path(tempfile.mkdtemp(prefix="hxr-", dir="/tmp"))  # short: Ray's socket paths must fit 107 bytes
        self.home = self.root / "home"
        self.home.mkdir()
        self.env = {"PATH": f"{BIN}:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": str(self.home),
                    "RAY_TMPDIR": str(self.root), "RAY_AUTH_MODE": "token", "LANG": "C.UTF-8",
                    "RAY_USAGE_STATS_ENABLED": "0"}
        if os.environ.get("PYTHONPATH"):  # a worktree's tests: driver and nodes import the code under test
            self.env["PYTHONPATH"] = os.environ["PYTHONPATH"]
        self.workers: dict[str, str] = {}  # worker name -> its mount namespace
        self.holder = subprocess.Popen(
            ["unshare", "--net", "--pid", "--fork", "--mount-proc", "--kill-child", sys.executable, "-c", _HOLDER],
            stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, preexec_fn=_die_with_parent)
        if self.holder.stdout.readline().strip() != b"ready":
            self.holder.kill()
            raise RuntimeError("the namespace holder did not start")
        self.init_pid = self._init_pid()
        self.netns = _ns_inode(self.init_pid, "net")

    def _init_pid(self) -> int:
        """The holder's forked child: pid 1 inside the namespaces, the one nsenter targets."""
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            kids = Path(f"/proc/{self.holder.pid}/task/{self.holder.pid}/children").read_text().split()
            if kids:
                return int(kids[0])
            time.sleep(0.05)
        raise RuntimeError("the namespace holder has no child")

    # ---- running things inside -------------------------------------------------------------
    def argv(self, argv: list[str], env: dict | None = None, cwd: Path | str | None = None) -> list[str]:
        """argv run inside the namespaces with only this cluster's environment (``None`` unsets)."""
        e = {k: v for k, v in {**self.env, **(env or {})}.items() if v is not None}
        return (["nsenter", "--target", str(self.init_pid), "--net", "--pid", "--mount", f"--wd={cwd or os.getcwd()}",
                 "--", "env", "-i", *[f"{k}={v}" for k, v in sorted(e.items())], *argv])

    def run(self, argv: list[str], env: dict | None = None, cwd: Path | str | None = None, timeout: float = 300,
            check: bool = False) -> subprocess.CompletedProcess:
        r = subprocess.run(self.argv(argv, env, cwd), capture_output=True, text=True, timeout=timeout)
        if check and r.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} exited {r.returncode}:\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}")
        return r

    def popen(self, argv: list[str], env: dict | None = None, cwd: Path | str | None = None, **kw) -> subprocess.Popen:
        return subprocess.Popen(self.argv(argv, env, cwd), **kw)

    # ---- the cluster ---------------------------------------------------------------------------
    def start_head(self, num_cpus: int = 1) -> None:
        """``ray get-auth-token --generate`` then ``ray start --head`` (token auth, as Ray ships it)."""
        self.run([str(BIN / "ray"), "get-auth-token", "--generate"], check=True)
        self.run([str(BIN / "ray"), "start", "--head", "--node-ip-address", "127.0.0.1", "--port", str(self.port),
                  "--num-cpus", str(num_cpus), "--include-dashboard", "false", "--include-log-monitor", "false",
                  "--disable-usage-stats", "--object-store-memory", str(200 * 2**20)], check=True)

    def start_worker(self, name: str = "w1", num_cpus: int = 1) -> None:
        """``ray start --address`` in a mount namespace of its own (recorded, to find its processes)."""
        mnt = self.root / f"{name}.mnt"
        script = f'readlink /proc/self/ns/mnt > {mnt} && exec "$@"'
        self.run(["unshare", "--mount", "--propagation", "private", "--", "sh", "-c", script, "sh",
                  str(BIN / "ray"), "start", "--address", self.address, "--node-ip-address", "127.0.0.1",
                  "--num-cpus", str(num_cpus), "--include-log-monitor", "false", "--disable-usage-stats",
                  "--object-store-memory", str(200 * 2**20)], check=True)
        self.workers[name] = mnt.read_text().strip()
        self.wait_for_nodes(1 + len(self.workers))

    def wait_for_nodes(self, n: int, timeout: float = 180) -> None:
        """Until ``ray status`` (what docs/how-to/run-on-ray.md says to check) lists n active nodes: ``ray start``
        returns when the node's raylet runs, and the status the head reports catches up a moment later (seconds
        under load: a test that read it at once saw one node of two)."""
        deadline, out = time.monotonic() + timeout, ""
        while time.monotonic() < deadline:
            out = self.run([str(BIN / "ray"), "status"], timeout=120).stdout
            if out.split("Pending:")[0].count(" node_") >= n:
                return
            time.sleep(1)
        raise RuntimeError(f"ray status did not list {n} active node(s) in {timeout:.0f} s:\n{out[-2000:]}")

    def worker_pids(self, name: str = "w1") -> list[int]:
        """Every process of a worker node: those in its mount namespace and all their descendants."""
        ns = self.workers[name]
        members = {p for p in _pids() if _ns_inode(p, "mnt") == ns}
        children: dict[int, list[int]] = {}
        for p in _pids():
            try:
                ppid = int(Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(p)
        out, todo = set(), list(members)
        while todo:
            p = todo.pop()
            if p not in out:
                out.add(p)
                todo += children.get(p, [])
        return sorted(out)

    def kill_worker(self, name: str = "w1") -> int:
        """SIGKILL a worker node (its raylet, agents, Ray workers and what they started), as a
        machine that dies would; returns how many processes were killed."""
        pids = self.worker_pids(name)
        for p in pids:
            try:
                os.kill(p, signal.SIGKILL)  # processes of this test's own worker node, by id
            except ProcessLookupError:
                pass
        return len(pids)

    def in_worker_mounts(self, name: str, argv: list[str]) -> None:
        """Run argv in a worker node's mount namespace (e.g. mount over a path only that node sees)."""
        pid = next(p for p in _pids() if _ns_inode(p, "mnt") == self.workers[name])
        subprocess.run(["nsenter", "--target", str(pid), "--mount", "--", *argv], check=True, capture_output=True)

    def set_published_ray_version(self, version: str) -> str:
        """Make the head announce another Ray version (the cluster metadata every driver and node
        checks on joining); returns the one it announced before."""
        code = ("import json, sys; from ray._raylet import GcsClient; c = GcsClient(address=sys.argv[1]); "
                "k, ns = b'CLUSTER_METADATA', b'cluster'; m = json.loads(c.internal_kv_get(k, ns, timeout=20)); "
                "print(m['ray_version']); m['ray_version'] = sys.argv[2]; "
                "c.internal_kv_put(k, json.dumps(m).encode(), True, ns, timeout=20)")
        return self.run([sys.executable, "-c", code, self.address, version], check=True).stdout.split()[-1]

    def outward_address(self, on: bool) -> None:
        """Give the namespace (or take back) an outward-looking address and default route."""
        self.run([sys.executable, "-c", _OUTWARD, "add" if on else "del"], check=True)

    def processes(self) -> list[int]:
        """Every process still in the cluster's network namespace (the holder excepted)."""
        return [p for p in _pids() if p not in (self.holder.pid, self.init_pid) and _ns_inode(p, "net") == self.netns]

    def stop(self) -> list[int]:
        """``ray stop`` inside (it sees only this PID namespace), then end the namespace: the kernel
        kills whatever is left. Returns the processes left in the namespace afterwards (none)."""
        try:
            if self.holder.poll() is None:
                self.run([str(BIN / "ray"), "stop", "--grace-period", "5"], timeout=60)
        except (subprocess.SubprocessError, OSError):
            pass
        finally:
            self.holder.kill()  # unshare dies; its --kill-child takes pid 1, and with it the namespace
            self.holder.wait()
            deadline = time.monotonic() + 60  # the kernel kills them at once; reaping can lag on a loaded machine
            while self.processes() and time.monotonic() < deadline:
                time.sleep(0.1)
            shutil.rmtree(self.root, ignore_errors=True)
        return self.processes()
