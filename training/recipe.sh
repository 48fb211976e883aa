#!/usr/bin/env bash
# The shipped entailment model, end to end, in one command:
#
#     bash training/recipe.sh                 # recover stages 1-2 from the shipped int8 ONNX, then stage 3
#     STAGES12=1 bash training/recipe.sh      # retrain stages 1-2 from the base model instead (~2.5 h, 1 thread)
#
# Stage 3 is resumable: it checkpoints every 5 minutes to ~/.cache/citebound-train/stage3/state.pt.
# Running this script again (the same session or a later one) resumes it instead of starting over; a
# stopped run (kill, session end) loses at most the minutes since its last checkpoint. To give it more
# training time in a later session, resume with a larger budget (the learning rate then follows the
# linear decay of the new budget from the time already trained):
#
#     nice -n 10 .venv-train/bin/python training/train_entailment.py --run-name stage3 --resume --budget-minutes 200
#
# Then the int8 ONNX export to a *candidate* path, its calibration on the held-out dev halves, and the
# same for the shipped model; the candidate replaces the shipped model only if its `model` and `full`
# mean balanced accuracy both beat the shipped one's. Needs .venv-train (see training/README.md) and
# .venv (make install).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=training/out
CACHE="${CITEBOUND_TRAIN_CACHE:-$HOME/.cache/citebound-train}"
RUN=stage3
mkdir -p "$OUT" /work/runs 2>/dev/null || true

if [[ "${STAGES12:-0}" == 1 ]]; then
    nice -n 10 .venv-train/bin/python training/train_entailment.py --pairs 64000 --budget-minutes 90 --seed 13 \
        --out "$OUT/stage1"
    nice -n 10 .venv-train/bin/python training/train_entailment.py --pairs 100000 --budget-minutes 95 --seed 14 \
        --lr 3e-5 --init "$OUT/stage1/cross_encoder.pt" --out "$OUT/stage2"
    INIT="$OUT/stage2/cross_encoder.pt"
else
    # The float checkpoints of stages 1-2 were not kept: dequantise the shipped int8 model (checked
    # against it on 100 dev fit-half pairs; see training/README.md).
    INIT="$CACHE/recovered/cross_encoder.pt"
    [[ -f "$INIT" ]] || .venv-train/bin/python training/recover_weights.py --out "$INIT" --check 100
fi

# Stage 3: document-level generators (training/pairs.py) + the NLI mix + claims/ dev fit halves,
# 2 threads, 128 tokens, lr 2e-5, 2 % warm-up, linear decay to the end of a 95-minute training budget.
if [[ -f "$CACHE/$RUN/state.pt" ]]; then
    nice -n 10 .venv-train/bin/python training/train_entailment.py --run-name "$RUN" --resume
else
    nice -n 10 .venv-train/bin/python training/train_entailment.py --run-name "$RUN" --init "$INIT" \
        --pairs 150000 --lr 2e-5 --warmup 0.02 --threads 2 --seed 15 --generators all --budget-minutes 95 \
        --checkpoint-minutes 5
fi

CAND="$OUT/candidate/model.onnx"
.venv-train/bin/python training/export_onnx.py --checkpoint "$CACHE/$RUN/cross_encoder.pt" --out "$CAND"
.venv/bin/python training/calibrate.py --model "$CAND" --out "$OUT/candidate/calibration.json"
.venv/bin/python training/calibrate.py --model citebound/models/entailment/model.onnx --out "$OUT/shipped_calibration.json"
if .venv/bin/python - "$OUT/candidate/calibration.json" "$OUT/shipped_calibration.json" <<'EOF'
import json, sys
c, s = (json.load(open(p)) for p in sys.argv[1:3])
wins = all(c[k]["mean_balanced_accuracy"] > s[k]["mean_balanced_accuracy"] for k in ("model", "full"))
print({k: (c[k]["mean_balanced_accuracy"], s[k]["mean_balanced_accuracy"]) for k in ("model", "full")}, "candidate wins" if wins else "shipped model kept")
sys.exit(0 if wins else 1)
EOF
then
    cp "$CAND" citebound/models/entailment/model.onnx
    .venv/bin/python training/calibrate.py   # -> citebound/models/entailment/calibration.json
fi
