#!/usr/bin/env bash
# The shipped entailment model, end to end, in one command (about 3 hours on one thread of a 2-core CPU):
#
#     bash training/recipe.sh
#
# Stage 1 fine-tunes all-MiniLM-L6-v2 on a 64k-pair label-balanced sample (seed 13); stage 2 continues
# from it on a fresh 100k-pair sample (seed 14, lower learning rate). Each stage is time-boxed
# (--budget-minutes) and prints the time it took. Then the int8 ONNX export and the calibration of the
# thresholds on the held-out dev halves. Needs .venv-train (see training/README.md) and .venv (make install).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=training/out
nice -n 10 .venv-train/bin/python training/train_entailment.py --pairs 64000 --budget-minutes 90 --seed 13 \
    --out "$OUT/stage1"
nice -n 10 .venv-train/bin/python training/train_entailment.py --pairs 100000 --budget-minutes 95 --seed 14 \
    --lr 3e-5 --init "$OUT/stage1/cross_encoder.pt" --out "$OUT/stage2"
.venv-train/bin/python training/export_onnx.py --checkpoint "$OUT/stage2/cross_encoder.pt"
.venv/bin/python training/calibrate.py
