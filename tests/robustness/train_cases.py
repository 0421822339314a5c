"""Bad inputs to the training side: broken checkpoints (SB3 and RLlib) and bad training configs."""

from __future__ import annotations

import io
import json
import pickle
import shutil
import zipfile
from pathlib import Path
from typing import Any

from .harness import Case

FIGHT5_META = dict(game="fight5", env="fight5_v0", num_players=[2], observation_shape=(627,), num_actions=13,
                   env_options={"reward": "outcome"}, label="corpus@0")


def _good_checkpoint(folder: Path) -> Path:
    """A small data-only training checkpoint of Fight 5 (untrained, 16-unit layers)."""
    from sb3_contrib import MaskablePPO

    from fight_envs.agents.checkpoint import checkpoint_metadata, save_checkpoint
    from fight_envs.wrappers import SingleAgentEnv

    folder.mkdir(parents=True, exist_ok=True)
    model = MaskablePPO("MlpPolicy", SingleAgentEnv(seed=0), policy_kwargs={"net_arch": [16, 16]}, seed=0, n_steps=16)
    return save_checkpoint(model, folder / "good.zip", checkpoint_metadata(**FIGHT5_META))


def _rewrite(src: Path, dst: Path, change: dict[str, bytes | None]) -> Path:
    """Copy zip ``src`` to ``dst`` replacing (bytes) or dropping (None) entries; sidecar copied."""
    with zipfile.ZipFile(src) as z:
        entries = {n: z.read(n) for n in z.namelist()}
    for name, data in change.items():
        if data is None:
            entries.pop(name, None)
        else:
            entries[name] = data
    with zipfile.ZipFile(dst, "w") as z:
        for name, data in entries.items():
            z.writestr(name, data)
    shutil.copy(src.with_suffix(".json"), dst.with_suffix(".json"))
    return dst


def _tensors(obj: Any) -> bytes:
    import torch

    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


class _Payload:
    """Unpickling this calls ``os.system``-like code: here, it would write a file."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self) -> Any:
        return (Path.write_text, (Path(self.path), "pwned"))


def checkpoint_cases(tmp: Path) -> list[Case]:
    from fight_envs.agents.checkpoint import load_checkpoint_agent

    good = _good_checkpoint(tmp / "sb3")
    with zipfile.ZipFile(good) as z:
        header = json.loads(z.read("fight_envs_policy.json"))
        weights = z.read("policy.pt")
    raw = good.read_bytes()
    cases: list[Case] = []

    def add(label: str, path: Path, names: tuple = ()) -> None:
        cases.append(Case("checkpoint", "sb3", label, lambda p=path: load_checkpoint_agent(p, game="fight5"), names=names))

    def file(label: str, data: bytes, names: tuple = ()) -> None:
        path = tmp / "sb3" / f"{label}.zip"
        path.write_bytes(data)
        shutil.copy(good.with_suffix(".json"), path.with_suffix(".json"))
        add(label, path, names or (path.name,))

    file("zero-bytes", b"")
    for frac in (0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99):
        file(f"cut-at-{int(frac * 100)}pct", raw[: int(len(raw) * frac)])
    file("random-bytes", bytes(range(256)) * 64)
    file("text", b"hello, not a zip\n" * 10)
    file("pickle-file", pickle.dumps({"policy": 1}))

    def entry(label: str, change: dict[str, bytes | None], names: tuple = ()) -> None:
        path = _rewrite(good, tmp / "sb3" / f"{label}.zip", change)
        add(label, path, names or (path.name,))

    entry("no-header", {"fight_envs_policy.json": None})
    entry("no-weights", {"policy.pt": None}, ("policy.pt",))
    entry("header-not-json", {"fight_envs_policy.json": b"{nope"}, ("fight_envs_policy.json",))
    entry("header-deep", {"fight_envs_policy.json": b"[" * 100_000 + b"]" * 100_000}, ("fight_envs_policy.json",))
    entry("header-list", {"fight_envs_policy.json": b"[1, 2]"}, ("fight_envs_policy.json",))
    entry("header-format", {"fight_envs_policy.json": json.dumps({**header, "format": "x"}).encode()})
    entry("header-version-99", {"fight_envs_policy.json": json.dumps({**header, "format_version": 99}).encode()},
          ("format_version",))
    for key, value in [("class", "os.system"), ("class", "builtins.eval"), ("activation", "Sigmoid"),
                       ("features", "evil"), ("optimizer", "SGD"), ("net_arch", [0]), ("net_arch", [-1]),
                       ("net_arch", [10**9]), ("net_arch", "x"), ("net_arch", [16] * 100), ("observation_shape", [0]),
                       ("observation_shape", "x"), ("observation_shape", [10**7]), ("num_actions", 0),
                       ("num_actions", 12), ("num_actions", True), ("ortho_init", "yes"),
                       ("optimizer_kwargs", {"eps": float("nan")}), ("optimizer_kwargs", {"foreach": True}),
                       ("observation_low", "x"), ("observation_low", 1e9), ("net_arch", [65536, 65536])]:
        spec = {**header["policy"], key: value}
        entry(f"spec-{key}={json.dumps(value)[:20]}", {"fight_envs_policy.json": json.dumps({**header, "policy": spec}).encode()},
              (key,) if key != "observation_low" else ("observation_low",))
    spec = {k: v for k, v in header["policy"].items() if k != "net_arch"}
    entry("spec-without-net_arch", {"fight_envs_policy.json": json.dumps({**header, "policy": spec}).encode()}, ("net_arch",))

    import torch

    state = torch.load(io.BytesIO(weights), weights_only=True)
    nan_state = {k: torch.full_like(v, float("nan")) for k, v in state.items()}
    entry("weights-nan", {"policy.pt": _tensors(nan_state)}, ("NaN",))
    entry("weights-missing-key", {"policy.pt": _tensors(dict(list(state.items())[1:]))}, ("weights",))
    wrong = {k: (torch.zeros(3) if i == 0 else v) for i, (k, v) in enumerate(state.items())}
    entry("weights-wrong-shape", {"policy.pt": _tensors(wrong)}, ("weights",))
    entry("weights-a-list", {"policy.pt": _tensors(list(state.values()))}, ("policy.pt",))
    entry("weights-garbage", {"policy.pt": b"\x00" * 100}, ("policy.pt",))
    entry("weights-pickled-object", {"policy.pt": pickle.dumps(_Payload(str(tmp / "sb3" / "PWNED")))}, ("policy.pt",))

    def sidecar(label: str, meta: Any, raw_text: str | None = None, names: tuple = ()) -> None:
        path = tmp / "sb3" / f"side-{label}.zip"
        shutil.copy(good, path)
        path.with_suffix(".json").write_text(raw_text if raw_text is not None else json.dumps(meta))
        add(f"sidecar-{label}", path, names or (path.with_suffix(".json").name, "sidecar"))

    meta = json.loads(good.with_suffix(".json").read_text())
    sidecar("not-json", None, "{oops")
    sidecar("deep", None, "[" * 100_000 + "]" * 100_000)
    sidecar("list", [meta])
    sidecar("format", {**meta, "format": "x"})
    sidecar("version-99", {**meta, "format_version": 99}, names=("format_version",))
    sidecar("version-string", {**meta, "format_version": "1"}, names=("format_version",))
    sidecar("without-game", {k: v for k, v in meta.items() if k != "game"}, names=("game",))
    sidecar("game-brawl", {**meta, "game": "brawl"}, names=("brawl",))
    sidecar("shape-x", {**meta, "observation_shape": "x"}, names=("observation_shape",))
    sidecar("shape-mismatch", {**meta, "observation_shape": [500]}, names=("observation",))
    sidecar("actions-negative", {**meta, "num_actions": -1}, names=("num_actions",))
    sidecar("players-x", {**meta, "num_players": ["x"]}, names=("num_players",))
    sidecar("env-options-list", {**meta, "env_options": [1]}, names=("env_options",))
    sidecar("env-unknown", {**meta, "env": "chess_v0"}, names=("chess",))
    sidecar("env-option-bad", {**meta, "env_options": {"num_bouts": -3}}, names=("num_bouts",))
    path = tmp / "sb3" / "no-sidecar.zip"
    shutil.copy(good, path)
    add("no-sidecar", path, ("sidecar",))
    add("missing-file", tmp / "sb3" / "nope.zip", ("nope.zip",))
    add("directory", tmp / "sb3", ("sb3",))
    return cases


def rllib_cases(tmp: Path) -> list[Case]:
    from fight_envs.agents.rllib_agent import load_rllib_agent

    shipped = Path(__file__).resolve().parents[2] / "models" / "fight5_2p_rllib"
    cases: list[Case] = []

    def variant(label: str, meta_change: Any = None, state: bytes | None = None, raw_meta: str | None = None,
                names: tuple = ()) -> None:
        d = tmp / "rllib" / label
        shutil.copytree(shipped, d)
        meta = json.loads((d / "fight_envs_agent.json").read_text())
        if raw_meta is not None:
            (d / "fight_envs_agent.json").write_text(raw_meta)
        elif meta_change is not None:
            (d / "fight_envs_agent.json").write_text(json.dumps(meta_change(meta)))
        if state is not None:
            (d / "module_state.pt").write_bytes(state)
        cases.append(Case("checkpoint", "rllib", label, lambda d=d: load_rllib_agent(d, game="fight5"),
                          names=names or (label.split("=")[0],)))

    variant("meta-not-json", raw_meta="{x", names=("JSON",))
    variant("meta-deep", raw_meta="[" * 100_000 + "]" * 100_000, names=("JSON", "deep"))
    variant("meta-list", raw_meta="[1]", names=("JSON object",))
    variant("without-module", lambda m: {k: v for k, v in m.items() if k != "module"}, names=("module",))
    for key, value in [("class", "os.system"), ("obs_key", "x"), ("observation_size", 0), ("num_actions", -1),
                       ("num_actions", 12), ("observation_low", "x"), ("model_config", [1])]:
        variant(f"module.{key}={json.dumps(value)}", lambda m, k=key, v=value: {**m, "module": {**m["module"], k: v}},
                names=(key,))
    for key, value in [("fcnet_hiddens", [0]), ("fcnet_hiddens", [10**9]), ("fcnet_hiddens", [65536, 65536]), ("fcnet_activation", "evil"),
                       ("features", "x"), ("fcnet_kernel_initializer", "os.system"), ("use_lstm", True)]:
        variant(f"model_config.{key}={json.dumps(value)}",
                lambda m, k=key, v=value: {**m, "module": {**m["module"], "model_config": {**m["module"]["model_config"], k: v}}},
                names=(key.split("_")[0],))
    variant("game-brawl", lambda m: {**m, "game": "brawl"}, names=("brawl",))
    variant("env-options-list", lambda m: {**m, "env_options": [1]}, names=("env_options",))
    variant("state-garbage", state=b"\x00" * 64, names=("module_state.pt",))
    variant("state-empty", state=b"", names=("module_state.pt",))
    variant("state-payload", state=pickle.dumps(_Payload(str(tmp / "rllib" / "PWNED"))), names=("module_state.pt",))
    variant("state-list", state=_tensors([1, 2, 3]), names=("module_state.pt",))
    empty = tmp / "rllib" / "empty"
    empty.mkdir(parents=True)
    cases.append(Case("checkpoint", "rllib", "empty-dir", lambda: load_rllib_agent(empty), names=("empty",)))
    cases.append(Case("checkpoint", "rllib", "missing-dir", lambda: load_rllib_agent(tmp / "rllib" / "nope"), names=("nope",)))
    return cases


# ----------------------------------------------------------------------------- training configs
NUMERIC_KEYS = [
    "total_timesteps", "n_envs", "torch_threads", "checkpoint_every", "keep_checkpoints", "log_every_s", "seed",
    "ppo.learning_rate", "ppo.batch_size", "ppo.n_epochs", "ppo.gamma", "ppo.gae_lambda", "ppo.clip_range",
    "ppo.ent_coef", "ppo.vf_coef", "ppo.max_grad_norm", "ppo.n_steps", "ppo.target_kl",
    "opponents.anneal_fraction", "opponents.snapshot_every", "opponents.max_snapshots", "opponents.pfsp_power",
    "opponents.winrate_window", "eval.every", "eval.games", "eval.num_players",
]
BAD_NUMBERS = [".nan", ".inf", "-.inf", "-1", "-1e30", "1e30", "x", "[1]", "{a: 1}"]
ZERO_INVALID = {"total_timesteps", "n_envs", "torch_threads", "checkpoint_every", "keep_checkpoints", "log_every_s",
                "ppo.learning_rate", "ppo.batch_size", "ppo.n_epochs", "ppo.gamma", "ppo.clip_range",
                "ppo.max_grad_norm", "ppo.n_steps", "ppo.target_kl", "opponents.snapshot_every",
                "opponents.max_snapshots", "opponents.winrate_window", "eval.every", "eval.num_players"}
OTHER_BAD = [
    ("run_name=../../x", ("run_name",)), ("run_name=a/b", ("run_name",)), ("run_name=..", ("run_name",)),
    ("run_name=/etc/x", ("run_name",)), ("run_name=.hidden", ("run_name",)), ("ppo.batch_size=1", ("batch_size",)),
    ("ppo.batch_size=1000000000", ("batch_size",)), ("ppo.net_arch=[0]", ("net_arch",)),
    ("ppo.net_arch=[-4]", ("net_arch",)), ("ppo.net_arch=[]", ("net_arch",)), ("ppo.net_arch=[10000000]", ("net_arch",)),
    ("ppo.net_arch=[8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8]", ("net_arch",)),
    ("torch_threads=100000", ("torch_threads",)), ("device=cuda", ("device", "cuda")), ("device=gpu", ("device",)),
    ("device=cuda:7", ("device", "cuda")),
    ("opponents.weights_end.random=.nan", ("weights",)), ("opponents.weights_start.random=.inf", ("weights",)),
    ("opponents.weights_start={greedy: -1}", ("weights",)), ("opponents.weights_start={nobody: 1.0}", ("nobody",)),
    ("eval.baselines=[nobody]", ("nobody",)), ("env.name=chess_v0", ("chess",)), ("env.num_players=[9]", ("num_players", "9")),
    ("env.num_players=[2, 2]", ("num_players",)), ("env.num_bouts=0", ("num_bouts",)), ("env.reward=money", ("reward",)),
    ("env.options={speed: 3}", ("speed",)), ("vec_env=threads", ("vec_env",)), ("ppo.features=evil", ("features",)),
    ("ppo.activation=gelu", ("activation",)), ("ppo.lr_schedule=cosine", ("lr_schedule",)), ("progress=loud", ("progress",)),
    ("unknown_key=1", ("unknown_key",)), ("ppo.unknown=1", ("ppo.unknown",)), ("ppo=3", ("ppo",)),
    ("vec_env=batched env.name=brawl_v0", ("batched",)), ("env.name=brawl_v0", ("reward", "fight5_slot")),
    ("eval.num_players=7", ("num_players",)),
]


def _tiny(tmp: Path) -> list[str]:
    """Overrides that make a run tiny: an accidental acceptance trains for a second, not for hours."""
    return [f"runs_dir={tmp}", "total_timesteps=64", "n_envs=1", "ppo.n_steps=32", "ppo.batch_size=32",
            "ppo.n_epochs=1", "eval.games=0", "checkpoint_every=64", "opponents.snapshot_every=64",
            "progress=none", "vec_env=dummy", "ppo.net_arch=[8]", "ppo.features=flat", "env.num_bouts=1"]


def config_cases(tmp: Path) -> list[Case]:
    from fight_envs.train.config import load_config
    from fight_envs.train.selfplay import train_main

    cases: list[Case] = []

    def add(label: str, overrides: list[str], names: tuple) -> None:
        runs = tmp / "configs" / label.replace("/", "_")

        def run(overrides=overrides, runs=runs) -> Any:
            return train_main(load_config(None, _tiny(runs) + overrides))

        def after(runs=runs) -> None:  # refused before anything was written
            assert not runs.exists() or not any(runs.rglob("*")), f"a refused config wrote {sorted(runs.rglob('*'))[:5]}"
            assert not (tmp.parent / "x").exists(), "run_name escaped runs_dir"

        cases.append(Case("config", "sb3", label, run, names=names, after=after))

    for key in NUMERIC_KEYS:
        bad = BAD_NUMBERS + (["0"] if key in ZERO_INVALID else [])
        if key == "seed":
            bad = [b for b in bad if b != "1e30"] + ["1e30"]
        for value in bad:
            if key == "eval.games" and value in ("1e30",):
                continue
            add(f"{key}={value}", [f"{key}={value}"], (key,))
    import torch

    for override, names in OTHER_BAD:
        if override.startswith("device=cuda") and torch.cuda.is_available() and override != "device=cuda:7":
            continue  # a valid device on this machine
        add(override, override.split(" "), names)
    return cases


def rllib_config_cases() -> list[Case]:
    from fight_envs.train.rllib.config import load_rllib_config

    cases = []
    for override, names in [("ray.torch_threads=100000", ("torch_threads",)), ("ppo.batch_size=1", ("batch_size",)),
                            ("ppo.vf_clip=.nan", ("vf_clip",)), ("ppo.learning_rate=.inf", ("learning_rate",)),
                            ("run_name=../x", ("run_name",)), ("ray.num_env_runners=-1", ("num_env_runners",)),
                            ("ray.num_cpus_per_learner=.nan", ("num_cpus_per_learner",)),
                            ("ppo.clip_range=-0.2", ("clip_range",)), ("ppo.ent_coef=-1", ("ent_coef",)),
                            ("ppo.train_batch_size=0", ("train_batch_size",)), ("ray.env_api=magic", ("env_api",)),
                            ("opponents.pfsp_power=.nan", ("pfsp_power",))]:
        cases.append(Case("config", "rllib", override, lambda o=override: load_rllib_config(None, [o]), names=names))
    return cases
