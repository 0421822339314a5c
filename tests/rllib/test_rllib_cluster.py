"""Two Ray nodes on this machine, as on a real cluster: a head (``ray start --head``) and a second
node (``ray start --address=...``), each its own set of processes on its own loopback address
(127.0.0.2 and 127.0.0.3), token authentication on. The RLlib trainer joins the cluster through
``ray.address`` and its two env runners, one CPU each, land one on each node: the run's summary
shows both nodes contributing samples. Every TCP connection the Ray processes hold stays on
loopback. The nodes are stopped at the end (by their own temp directory, so no other Ray on the
machine is touched), and every wait is bounded.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

HEAD_IP, WORKER_IP = "127.0.0.2", "127.0.0.3"
START_TIMEOUT_S = 60
TRAIN_TIMEOUT_S = 240


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ray_processes(temp_dir: str) -> list[int]:
    """PIDs of the processes started for this cluster (their command lines name its temp dir)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if temp_dir.encode() in (entry / "cmdline").read_bytes():
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids


def established_peers(pids: list[int]) -> set[str]:
    """Remote IPv4/IPv6 addresses of the established TCP connections held by ``pids``."""
    inodes = set()
    for pid in pids:
        try:
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                target = os.readlink(fd)
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
        except OSError:
            continue
    peers = set()
    for table, v6 in (("/proc/net/tcp", False), ("/proc/net/tcp6", True)):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[3] != "01" or fields[9] not in inodes:  # 01: ESTABLISHED
                continue
            hex_ip = fields[2].split(":")[0]
            if v6:
                peers.add(socket.inet_ntop(socket.AF_INET6, b"".join(
                    bytes.fromhex(hex_ip[i:i + 8])[::-1] for i in range(0, 32, 8))))
            else:
                peers.add(socket.inet_ntoa(bytes.fromhex(hex_ip)[::-1]))
    return peers


def is_loopback(address: str) -> bool:
    return address.startswith("127.") or address in ("::1",) or address.startswith("::ffff:127.")


def start_node(args: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "ray.scripts.scripts", "start", "--block", *args],
                            stdout=log.open("w"), stderr=subprocess.STDOUT, env=env, start_new_session=True)
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if "Ray runtime started" in log.read_text():
            return proc
        if proc.poll() is not None:
            break
        time.sleep(0.5)
    raise AssertionError(f"ray start did not come up within {START_TIMEOUT_S} s:\n{log.read_text()[-3000:]}")


def stop_cluster(procs: list[subprocess.Popen], temp_dir: str) -> None:
    for proc in procs:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + 5
    while ray_processes(temp_dir) and time.monotonic() < deadline:
        time.sleep(0.5)
    for pid in ray_processes(temp_dir):  # whatever ignored SIGTERM
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    for proc in procs:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


@pytest.fixture
def two_node_cluster(tmp_path):
    # Ray's unix socket paths must stay short, so its temp dir is not pytest's (long) tmp_path.
    temp_dir = tempfile.mkdtemp(prefix="fe-ray-", dir="/tmp")
    port = free_port()
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "token",
           "RAY_AUTH_TOKEN": secrets.token_hex(32)}
    common = ["--num-cpus=1", "--object-store-memory=100000000", "--disable-usage-stats"]
    procs: list[subprocess.Popen] = []
    try:
        procs.append(start_node(["--head", f"--node-ip-address={HEAD_IP}", f"--port={port}", "--include-dashboard=false",
                                 f"--temp-dir={temp_dir}", *common], tmp_path / "head.log", env))
        procs.append(start_node([f"--address={HEAD_IP}:{port}", f"--node-ip-address={WORKER_IP}", *common],
                                tmp_path / "worker.log", env))
        yield {"address": f"{HEAD_IP}:{port}", "env": env, "temp_dir": temp_dir}
    finally:
        stop_cluster(procs, temp_dir)
        shutil.rmtree(temp_dir, ignore_errors=True)
    assert not ray_processes(temp_dir), "a Ray process of the test cluster outlived it"


def test_env_runners_on_both_nodes_contribute_samples(two_node_cluster, tmp_path):
    cluster = two_node_cluster
    overrides = [
        f"ray.address={cluster['address']}", f"ray.node_ip_address={HEAD_IP}",
        "ray.num_env_runners=2", "ray.num_cpus_per_env_runner=1", "ray.num_envs_per_env_runner=2",
        "total_timesteps=400", "ppo.train_batch_size=400", "ppo.batch_size=200", "ppo.n_epochs=1",
        "ppo.net_arch=[32]", "eval.games=0", "checkpoint_every=100000", f"runs_dir={tmp_path / 'runs'}", "run_name=cluster",
    ]
    cmd = [sys.executable, "-c", "from fight_envs.train.cli import main; raise SystemExit(main())", "train-rllib", *overrides]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=cluster["env"],
                            cwd=Path(__file__).resolve().parents[2])
    peers: set[str] = set()
    deadline = time.monotonic() + TRAIN_TIMEOUT_S
    while proc.poll() is None and time.monotonic() < deadline:
        peers |= established_peers(ray_processes(cluster["temp_dir"]) + [proc.pid])
        time.sleep(1.0)
    if proc.poll() is None:
        proc.kill()
        raise AssertionError(f"training on the cluster did not finish within {TRAIN_TIMEOUT_S} s")
    output = proc.stdout.read()
    assert proc.returncode == 0, output[-4000:]

    summary = json.loads((tmp_path / "runs" / "cluster" / "summary.json").read_text())
    runners = summary["env_runners"]
    assert len(runners) == 2
    assert {r["node_ip"] for r in runners} == {HEAD_IP, WORKER_IP}, runners
    assert all(r["env_steps"] > 0 for r in runners), runners
    assert summary["learner_steps"] >= 400
    assert summary["ray_address"] == cluster["address"]
    assert peers, "no connection was seen (the check would prove nothing)"
    assert all(is_loopback(p) for p in peers), f"Ray connected beyond loopback: {sorted(peers)}"
