#!/usr/bin/env bash
# The GPU measurements of the closing notes, run through the device tool:
#   bash benchmarks/run_gpu.sh OUT_DIR TARGET...   (each TARGET a make() in gpu_models.py)
# Results: OUT_DIR/<target>.json and .txt, one per target, written as each finishes.
set -u
out=$1; shift
export PYTHONPATH=src PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, torch.cuda.get_device_name())"
for target in "$@"; do
    start=$(date +%s)
    python3 -m compilescope bench "benchmarks/gpu_models.py:${target%%@*}" --device cuda ${BENCH_ARGS:-} \
        --json "$out/$target.json" > "$out/$target.txt" 2>&1
    echo "$target: exit $? in $(( $(date +%s) - start )) s"
    cat "$out/$target.txt"
done
