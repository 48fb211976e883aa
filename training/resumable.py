"""The resumable training loop of train_entailment.py and train_reranker.py (one copy, used by both).

A script keeps what is its own (data, loss, evaluation, train_info.json's fields) and hands the rest to
this module:

    state = load_resume(args, run_dir, path_args=("init",), default_budget=60.0)   # None unless --resume
    seed_all(args.seed, args.threads)
    ...data, model (loaded from --init only when state is None)...
    loop = ResumableLoop(args, run_dir, model, optimiser(model, args.lr), len(batches), data_sha1, state)
    loop.run(lambda i: (loss of batch i, pairs in it))       # checkpoints, signals, budget, LR schedule
    ...evaluation...
    loop.write_outputs(info, [run_dir, args.out])             # cross_encoder.pt + train_info.json

What it owns (training/README.md, "Resumable runs"):

- ``RUN/state.pt`` (RUN = ``CACHE / --run-name``): weights, AdamW state, step (= the data position: the
  script regenerates its data from the seed and checks ``data_sha1``), total steps, pairs seen, the
  running loss, training seconds so far, the Python / NumPy / torch RNG states (dropout), the args, one
  record per session, plus whatever the script adds (``extra``). Written every ``--checkpoint-minutes``,
  on SIGTERM / SIGINT (the step in progress finishes first) and whenever the run stops; atomically
  (``state.pt.tmp``, then ``os.replace``). The format is the one both scripts wrote before this module.
- ``--resume``: the saved args are used, except the stop controls given now (``KEEP_NOW``, and
  ``--budget-minutes`` when given, which may extend the run).
- The learning rate: linear warm-up, then linear decay on whichever runs out first, the planned steps or
  the training-time budget (summed over resumed sessions), so a slower machine still ends decayed.
- Whenever the run stops: ``cross_encoder.pt`` (weights as they stand) and ``train_info.json``.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sys
import time
from pathlib import Path
from typing import Callable, Iterable

import numpy as np
import torch

CACHE = Path(os.environ.get("CITEBOUND_TRAIN_CACHE", "~/.cache/citebound-train")).expanduser()
KEEP_NOW = ("resume", "stop_after_steps", "checkpoint_minutes")  # taken from the resuming command, not the run


def atomic_save(obj, path: Path) -> None:
    """torch.save to ``path.tmp``, then os.replace: a stop mid-write never leaves a torn file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    torch.save(obj, tmp)
    os.replace(tmp, path)


def args_record(args) -> dict:
    """The argparse namespace as saved in state.pt and train_info.json (paths as strings)."""
    return {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}


def utc_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def load_resume(args, run_dir: Path | None, path_args: Iterable[str], default_budget: float) -> dict | None:
    """With ``--resume``: run_dir/state.pt, its saved args set on ``args`` (those named in path_args as
    Paths), except KEEP_NOW and a ``--budget-minutes`` given now. Then the budget's default. None for a
    new run."""
    state = None
    if args.resume:
        if run_dir is None or not (run_dir / "state.pt").exists():
            raise SystemExit(f"--resume needs --run-name with a checkpoint in {run_dir}")
        state = torch.load(run_dir / "state.pt", map_location="cpu", weights_only=False)
        for k, v in state["args"].items():  # the run's own args win, except the stop controls given now
            if k in KEEP_NOW or (k == "budget_minutes" and args.budget_minutes is not None):
                continue
            setattr(args, k, Path(v) if k in path_args and v else v)
        print(f"resuming {args.run_name} at step {state['step']} ({state['elapsed_train'] / 60:.1f} min trained)", file=sys.stderr)
    if args.budget_minutes is None:
        args.budget_minutes = default_budget
    return state


def seed_all(seed: int, threads: int) -> None:
    torch.set_num_threads(threads)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def optimiser(model, lr: float):
    """AdamW, weight decay 0.01 except biases and LayerNorm weights; the word-piece table is frozen (half
    the weights: rare words stay where the sentence model put them, and each step is cheaper)."""
    model.encoder.embeddings.word_embeddings.weight.requires_grad_(False)
    no_decay = ("bias", "LayerNorm.weight")
    trainable = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    groups = [
        {"params": [p for n, p in trainable if not any(k in n for k in no_decay)], "weight_decay": 0.01},
        {"params": [p for n, p in trainable if any(k in n for k in no_decay)], "weight_decay": 0.0},
    ]
    return torch.optim.AdamW(groups, lr=lr, fused=torch.cuda.is_available())


def lr_scale(step: int, total: int, warm: int, time_done: float) -> float:
    """The learning rate's factor at `step` (1-based): linear warm-up over `warm` steps, then linear decay
    to 0 on whichever runs out first, the steps or the time (time_done = training seconds / budget)."""
    done = max((step - 1) / total, time_done)
    return min(step / warm, max(0.0, (1 - done) / (1 - warm / total)))


def rng_states() -> dict:
    return {"python": random.getstate(), "numpy": np.random.get_state(), "torch": torch.get_rng_state()}


def set_rng_states(rng: dict) -> None:
    random.setstate(rng["python"])
    np.random.set_state(rng["numpy"])
    torch.set_rng_state(rng["torch"])


class ResumableLoop:
    """One run of `total` planned steps over a script's batches, resumed from `state` when given.

    args needs: lr, warmup, threads, budget_minutes, checkpoint_minutes, stop_after_steps (and run_name
    for the messages). run_dir None: no state.pt (a plain run; train_entailment.py without --run-name).
    extra: script keys saved in state.pt beside the loop's own; session: keys added to this session's
    record. The loop prints progress every `log_every` steps, with an ETA when pairs_per_step is given."""

    def __init__(self, args, run_dir: Path | None, model, optim, total: int, data_sha1: str,
                 state: dict | None = None, extra: dict | None = None, session: dict | None = None,
                 log_every: int = 50, pairs_per_step: int | None = None):  # fmt: skip
        self.args, self.run_dir, self.model, self.optim = args, run_dir, model, optim
        self.total, self.warm = total, max(1, int(total * args.warmup))
        self.data_sha1, self.extra = data_sha1, extra or {}
        self.log_every, self.pairs_per_step = log_every, pairs_per_step
        self.start, self.seen, self.running, self.elapsed0, self.sessions = 0, 0, 0.0, 0.0, []
        if state is not None:
            model.load_state_dict(state["model"])
            optim.load_state_dict(state["optim"])
            self.start, self.seen, self.running = state["step"], state["seen"], state["running"]
            self.elapsed0, self.sessions = state["elapsed_train"], state.get("sessions", [])
            set_rng_states(state["rng"])
        self.sessions.append({"started_utc": utc_now(), "from_step": self.start, "threads": args.threads, **(session or {})})
        self.step = self.start
        self.budget = args.budget_minutes * 60
        self.reason = ""
        self.t_train = time.time()

    def elapsed(self) -> float:
        """Training seconds, summed over the sessions of the run."""
        return self.elapsed0 + (time.time() - self.t_train)

    def checkpoint(self, reason: str) -> None:
        if self.run_dir is None:
            return
        self.sessions[-1].update({"to_step": self.step, "ended_utc": utc_now()})
        atomic_save({
            "model": self.model.state_dict(), "optim": self.optim.state_dict(), "step": self.step,
            "total_steps": self.total, "seen": self.seen, "running": self.running, "elapsed_train": self.elapsed(),
            "data_sha1": self.data_sha1, "rng": rng_states(), "args": args_record(self.args), "sessions": self.sessions,
            **self.extra,
        }, self.run_dir / "state.pt")  # fmt: skip
        print(f"checkpoint ({reason}) step {self.step}/{self.total}, {self.elapsed() / 60:.1f} min trained "
              f"-> {self.run_dir / 'state.pt'}", file=sys.stderr, flush=True)  # fmt: skip

    def run(self, step_loss: Callable[[int], tuple[torch.Tensor, int]]) -> str:
        """Train from the saved step until the plan, the budget, a signal or --stop-after-steps ends it;
        step_loss(i) gives the loss of batch i and how many pairs it held. Checkpoints as it goes and at
        the end; returns why it stopped (also in self.reason)."""
        args, model, optim = self.args, self.model, self.optim
        stop = {"signal": None}

        def on_signal(signum, frame):  # finish the step, checkpoint, exit
            stop["signal"] = signum

        signal.signal(signal.SIGTERM, on_signal)
        signal.signal(signal.SIGINT, on_signal)
        model.train()
        self.t_train = time.time()
        last_ckpt, seen_here, reason = time.time(), 0, "all planned steps done"
        for i in range(self.start, self.total):
            if self.elapsed() > self.budget:
                reason = "budget reached"
                break
            if stop["signal"] is not None:
                reason = f"signal {stop['signal']}"
                break
            step = self.step = i + 1
            scale = lr_scale(step, self.total, self.warm, self.elapsed() / self.budget)
            for g in optim.param_groups:
                g["lr"] = args.lr * scale
            loss, n = step_loss(i)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optim.step()
            optim.zero_grad(set_to_none=True)
            self.seen += n
            seen_here += n
            self.running = 0.98 * self.running + 0.02 * loss.item() if step > 1 else loss.item()
            if step % self.log_every == 0 or step == self.total:
                rate = seen_here / (time.time() - self.t_train)
                eta = f", eta(steps) {(self.total - step) * self.pairs_per_step / rate / 60:.1f} min" if self.pairs_per_step else ""
                print(f"step {step}/{self.total} loss {self.running:.4f} lr {args.lr * scale:.2e} {rate:.1f} pairs/s "
                      f"trained {self.elapsed() / 60:.1f}/{self.budget / 60:.0f} min{eta}", file=sys.stderr, flush=True)  # fmt: skip
            if time.time() - last_ckpt >= args.checkpoint_minutes * 60:
                self.checkpoint("periodic")
                last_ckpt = time.time()
            if args.stop_after_steps and step - self.start >= args.stop_after_steps:
                reason = "stop-after-steps"
                break
        self.reason = reason
        self.checkpoint(reason)
        print(f"stopped: {reason} after {self.step} of {self.total} steps", file=sys.stderr, flush=True)
        return reason

    def write_outputs(self, info: dict, dirs: Iterable[Path | str | None], indent: int = 2) -> None:
        """The weights as they stand (cross_encoder.pt, atomically) and train_info.json in each of dirs
        (None skipped). `--resume` continues from state.pt, not from these."""
        for d in [Path(x) for x in dirs if x]:
            atomic_save(self.model.state_dict(), d / "cross_encoder.pt")
            (d / "train_info.json").write_text(json.dumps(info, indent=indent))
