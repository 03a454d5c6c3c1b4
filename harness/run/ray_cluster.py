"""Joining a Ray cluster someone else started (``harness run --executor ray --address ADDR``, or
``RAY_ADDRESS`` when ``--address`` is not given).

Everything that can make such a run go wrong is checked before any cell is dispatched, and each
failure is one line (an ``InputError``, exit 2) that names the cause and the fix:
- nothing answers at the address (a plain TCP connect, so a dead address fails in seconds, not
  after Ray's 40 s of retries);
- Ray refuses the driver's credentials: the cluster uses token authentication and the driver is
  not in token mode (Ray never turns it on for an explicit address), or its token is not the
  head's, or it is in token mode and Ray finds no token (Ray itself would abort the process);
- the cluster runs another Ray version, or a Python version Ray will not accept;
- this machine runs no node of the cluster (Ray attaches a driver to a node on its own machine);
- a node lacks the task corpus at the driver's path, holds files whose sha256 differs from the
  lock, or runs another Ray, Python or harness (``node_report``, one small Ray task per node).

A loopback address (127.0.0.1, localhost) stays loopback: Ray otherwise rewrites it to the
machine's outward interface address, where a head bound to 127.0.0.1 does not answer.
"""
from __future__ import annotations

import hashlib
import ipaddress
import json
import os
import platform
import socket
import sys
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from harness.core.errors import InputError

ENV_ADDRESS = "RAY_ADDRESS"
CONNECT_TIMEOUT_S = 5.0
PREFLIGHT_TIMEOUT_S = 120.0  # a loaded node needs a few seconds to start its first worker process
TOKEN_HELP = ("Ray reads the token from RAY_AUTH_TOKEN, else the file RAY_AUTH_TOKEN_PATH names, else "
              "~/.ray/auth_token; `ray get-auth-token` on the head prints it")


@dataclass(frozen=True)
class Address:
    """The cluster to join, and where the user said so (``--address`` or ``RAY_ADDRESS``)."""
    value: str
    source: str
    host: str | None = None
    port: int | None = None

    @property
    def loopback(self) -> bool:
        if self.host is None:
            return False
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False

    def refuse(self, message: str) -> InputError:
        return InputError(f"ray cluster {self.value}", self.source, message)


def resolve_address(address: str | None, environ=None) -> Address | None:
    """``--address``, else ``RAY_ADDRESS``, else None (start a local Ray instance)."""
    environ = os.environ if environ is None else environ
    source = "--address"
    if not address:
        address, source = (environ.get(ENV_ADDRESS) or "").strip(), ENV_ADDRESS
    if not address:
        return None
    if address == "auto":
        return Address(address, source)
    if "://" in address:
        raise InputError(f"ray cluster {address}", source, "a Ray Client address (ray://) is not supported: run "
                         "harness on a node of the cluster with --address HEAD_IP:6379 (the GCS port)")
    host, sep, port = address.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise InputError(f"ray cluster {address}", source, "expected HOST:PORT (the head's GCS address, e.g. "
                         "10.0.0.5:6379, as `ray start --head` prints it) or auto")
    return Address(address, source, host, int(port))


def loopback_ray() -> None:
    """Make Ray resolve this machine's node address as 127.0.0.1, not the host's interface address
    (Ray does so only when multi-host clustering is disabled; nodes added on this machine still
    form a cluster). Call before ray is imported."""
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")


def check_reachable(addr: Address, timeout: float = CONNECT_TIMEOUT_S) -> None:
    if addr.host is None:
        return
    try:
        with socket.create_connection((addr.host, addr.port), timeout=timeout):
            pass
    except OSError as exc:
        why = f"no answer in {timeout:g} s" if isinstance(exc, TimeoutError) else exc.strerror or type(exc).__name__
        raise addr.refuse(f"nothing answers at {addr.host}:{addr.port} ({why}): start the head there with "
                          f"`ray start --head --port {addr.port}` or give the address it printed") from None


@contextmanager
def quiet_stderr():
    """Keep Ray's output while connecting (its C++ core logs retries straight to file descriptor 2)
    out of the one-line error."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)


def _token_source(environ=None) -> str:
    environ = os.environ if environ is None else environ
    if environ.get("RAY_AUTH_TOKEN"):
        return "the RAY_AUTH_TOKEN variable"
    if environ.get("RAY_AUTH_TOKEN_PATH"):
        return f"RAY_AUTH_TOKEN_PATH={environ['RAY_AUTH_TOKEN_PATH']}"
    return str(Path.home() / ".ray" / "auth_token")


def token_problem(token_mode: bool, has_token, environ=None) -> str | None:
    """What is wrong with the driver's own token before anything is sent (Ray aborts the process
    on a missing token, and raises on an unreadable RAY_AUTH_TOKEN_PATH). ``has_token()`` asks
    Ray's own token loader, after the path is known to be readable."""
    environ = os.environ if environ is None else environ
    if not token_mode:
        return None
    path = environ.get("RAY_AUTH_TOKEN_PATH")
    if path and not environ.get("RAY_AUTH_TOKEN"):
        try:
            if not Path(path).read_text().strip():
                return f"RAY_AUTH_TOKEN_PATH={path} is empty: put the head's token there ({TOKEN_HELP})"
        except OSError as exc:
            return f"RAY_AUTH_TOKEN_PATH={path} cannot be read ({exc.strerror}): put the head's token there ({TOKEN_HELP})"
    if not has_token():
        return (f"RAY_AUTH_MODE=token but the driver has no token: copy the head's token to {_token_source(environ)} "
                f"or set RAY_AUTH_TOKEN ({TOKEN_HELP})")
    return None


def refused_credentials(token_mode: bool, environ=None) -> str:
    """The one line for a cluster that answered Unauthenticated."""
    if not token_mode:
        return ("the cluster refused the driver's credentials: it uses token authentication and this driver sends "
                "no token; export RAY_AUTH_MODE=token and give the driver the head's token "
                f"({TOKEN_HELP}; here: {_token_source(environ)})")
    return (f"the cluster refused the driver's token (read from {_token_source(environ)}): it is not the head's "
            f"token; copy the head's token there ({TOKEN_HELP})")


def python_match_level() -> str:
    return os.environ.get("RAY_DEFAULT_PYTHON_VERSION_MATCH_LEVEL", "patch")


def same_python(a: str, b: str, match_level: str = "patch") -> bool:
    """Python versions as Ray compares them: to the patch level by default, to the minor with
    RAY_DEFAULT_PYTHON_VERSION_MATCH_LEVEL=minor."""
    depth = 2 if match_level == "minor" else 3
    return a.split(".")[:depth] == b.split(".")[:depth]


def version_problem(cluster: dict, ray_version: str, python_version: str, match_level: str = "patch") -> str | None:
    """Ray joins a driver only with the cluster's Ray version and a Python version it accepts."""
    theirs_ray, theirs_py = cluster.get("ray_version"), cluster.get("python_version")
    if theirs_ray is None or theirs_py is None:
        return None
    if theirs_ray == ray_version and same_python(theirs_py, python_version, match_level):
        return None
    return (f"the cluster runs Ray {theirs_ray} on Python {theirs_py}; this driver has Ray {ray_version} on Python "
            f"{python_version}: install the cluster's versions on the driver (pip install 'ray[default]=={theirs_ray}' "
            f"under Python {'.'.join(theirs_py.split('.')[:2])}), or restart the cluster with the driver's")


def connect(addr: Address) -> str:
    """Check the cluster (reachable, credentials, versions, a node on this machine), then join it
    with ray.init. Returns a short description of what was joined; raises InputError. Call it
    before ray is imported (a loopback address needs ``loopback_ray`` first)."""
    check_reachable(addr)
    if addr.loopback:
        loopback_ray()
    import ray
    from ray._private.ray_constants import KV_NAMESPACE_CLUSTER
    from ray._raylet import (  # type: ignore[attr-defined]  # ray's _raylet.pyi omits these Cython names
        AuthenticationMode,
        AuthenticationTokenLoader,
        GcsClient,
        get_authentication_mode,
    )

    token_mode = get_authentication_mode() == AuthenticationMode.TOKEN
    problem = token_problem(token_mode, lambda: AuthenticationTokenLoader.instance().has_token(ignore_auth_mode=True))
    if problem:
        raise addr.refuse(problem)
    if addr.host is not None:
        with quiet_stderr():
            try:
                gcs = GcsClient(address=f"{addr.host}:{addr.port}")
                meta = gcs.internal_kv_get(b"CLUSTER_METADATA", KV_NAMESPACE_CLUSTER, timeout=CONNECT_TIMEOUT_S * 2)
                alive = _alive_node_ids(gcs)
            except ray.exceptions.AuthenticationError:
                raise addr.refuse(refused_credentials(token_mode)) from None
            except Exception as exc:  # an open port that is not a Ray head, a GCS that does not answer
                raise addr.refuse(f"no Ray head answers at {addr.host}:{addr.port} ({_first_line(exc)}): give the "
                                  "address `ray start --head` printed (its GCS port, 6379 by default)") from None
        problem = version_problem(json.loads(meta) if meta else {}, ray.__version__, platform.python_version(),
                                  python_match_level())
        if problem:
            raise addr.refuse(problem)
        from ray._private.services import find_node_ids
        if not set(find_node_ids()) & alive:
            raise addr.refuse(f"this machine runs no node of the cluster ({len(alive)} node(s) alive elsewhere) and "
                              "Ray attaches a driver to a node on its own machine: run harness on the head node, or "
                              f"first join this machine with `ray start --address {addr.value}`")
    with quiet_stderr():  # Ray's connect chatter; the driver logs what it joined in one line
        try:
            ray.init(address=addr.value, include_dashboard=False, log_to_driver=False)
        except ray.exceptions.AuthenticationError:
            raise addr.refuse(refused_credentials(token_mode)) from None
        except Exception as exc:
            raise addr.refuse(f"Ray could not join the cluster: {_first_line(exc)}") from None
    res = ray.cluster_resources()
    nodes = [n for n in ray.nodes() if n["Alive"]]
    auth = "token auth" if token_mode else "no auth"
    return (f"the cluster at {addr.value} ({len(nodes)} node(s), {int(res.get('CPU', 0))} CPUs, {auth}, "
            f"Ray {ray.__version__})")


def _alive_node_ids(gcs) -> set[str]:
    from ray.core.generated.gcs_pb2 import GcsNodeInfo  # type: ignore[attr-defined]  # protobuf module, no stubs
    infos = gcs.get_all_node_info(timeout=CONNECT_TIMEOUT_S * 2, state_filter=GcsNodeInfo.GcsNodeState.ALIVE)
    return {nid.hex() for nid in infos}


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return (text.splitlines()[0] if text else type(exc).__name__)[:300]


def harness_digest() -> str:
    """sha256 over this harness's own source (harness/*.py, by relative path): nodes must run the
    same harness as the driver for their cells to mean the same."""
    root = Path(__file__).resolve().parents[1]  # the harness package, every layer
    h = hashlib.sha256()
    for p in sorted(root.rglob("*.py")):
        h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def node_report(tasks_dir: str, files: dict[str, str]) -> dict:
    """What one node holds (run there as a Ray task): its Ray, Python and harness, and for every
    file the lock names (relative to tasks_dir) whether it is there and has the lock's sha256."""
    import ray
    root = Path(tasks_dir)
    missing, differ = [], []
    for rel, want in sorted(files.items()):
        try:
            got = hashlib.sha256((root / rel).read_bytes()).hexdigest()
        except OSError:
            missing.append(rel)
            continue
        if got != want:
            differ.append(rel)
    return {"host": socket.gethostname(), "ray": ray.__version__, "python": platform.python_version(),
            "harness": harness_digest(), "missing": missing, "differ": differ}


def report_problem(rep: dict, tasks_dir: str, total: int, driver: dict, match_level: str = "patch") -> str | None:
    """The first thing wrong with one node's report, as a sentence, or None."""
    if rep["ray"] != driver["ray"] or not same_python(rep["python"], driver["python"], match_level):
        return (f"runs Ray {rep['ray']} on Python {rep['python']}, the driver Ray {driver['ray']} on Python "
                f"{driver['python']}: install the same versions on every node")
    if rep["missing"]:
        return (f"lacks {len(rep['missing'])} of the {total} task-corpus files the lock names under {tasks_dir} "
                f"(first: {rep['missing'][0]}): every node needs the corpus at the driver's path (a checkout or a "
                "shared filesystem)")
    if rep["differ"]:
        return (f"holds {len(rep['differ'])} task-corpus file(s) under {tasks_dir} whose sha256 differs from the lock "
                f"(first: {rep['differ'][0]}): give every node the corpus the protocol was frozen with")
    if rep["harness"] != driver["harness"]:
        return ("runs a different harness (its harness/*.py digest differs from the driver's): install this "
                "repository at the same commit on every node")
    return None


def preflight(ray, tasks_dir: Path, files: dict[str, str], where: str, field: str,
              timeout: float = PREFLIGHT_TIMEOUT_S) -> list[str]:
    """Run ``node_report`` on every alive node (a zero-CPU task pinned to it) and refuse the run,
    naming the node, if any node differs from the driver or the lock. A node that left the cluster
    meanwhile (killed a moment ago, not yet declared dead) gets no cell and is only noted.
    Returns the notes, one line each."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
    nodes = [n for n in ray.nodes() if n["Alive"]]
    if not nodes:
        raise InputError(where, field, "the cluster has no node alive")
    task = ray.remote(num_cpus=0, max_retries=0)(node_report)
    refs = {task.options(scheduling_strategy=NodeAffinitySchedulingStrategy(n["NodeID"], soft=False))
            .remote(str(tasks_dir), files): n for n in nodes}
    ready, late = ray.wait(list(refs), num_returns=len(refs), timeout=timeout)
    driver = {"ray": ray.__version__, "python": platform.python_version(), "harness": harness_digest()}
    problems, notes = [], []

    def name(n: dict, host: str | None = None) -> str:
        return f"node {n['NodeManagerAddress']} ({n['NodeID'][:12]}{', host ' + host if host else ''})"

    for ref in late:
        problems.append(f"{name(refs[ref])} did not answer the corpus check within {timeout:g} s: is it overloaded "
                        "or cut off?")
    for ref in ready:
        n = refs[ref]
        try:
            rep = ray.get(ref)
        except Exception as exc:  # the node died, or the harness cannot be imported there
            gone = isinstance(exc, (ray.exceptions.TaskUnschedulableError, ray.exceptions.NodeDiedError)) or not any(
                m["NodeID"] == n["NodeID"] and m["Alive"] for m in ray.nodes())
            if gone:
                notes.append(f"{name(n)} left the cluster during the corpus check; no cell will run there")
            else:
                problems.append(f"{name(n)} failed the corpus check: {_first_line(exc)}")
            continue
        why = report_problem(rep, str(tasks_dir), len(files), driver, python_match_level())
        if why:
            problems.append(f"{name(n, rep['host'])} {why}")
    if not problems and len(notes) == len(nodes):
        problems.append("no node of the cluster answered the corpus check: every node left")
    if problems:
        more = f" (and {len(problems) - 1} more node(s))" if len(problems) > 1 else ""
        raise InputError(where, field, problems[0] + more)
    return notes + [f"corpus check: {len(nodes) - len(notes)} node(s) hold the {len(files)} locked files under "
                    f"{tasks_dir} and run Ray {driver['ray']}, Python {driver['python']} and this harness"]
