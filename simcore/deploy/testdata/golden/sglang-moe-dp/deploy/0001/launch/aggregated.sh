#!/bin/sh
# The aggregated role of aisim-0001-sglang-agg: one worker of 2, 4 × h200_sxm GPUs (tensor 1, pipeline 1, attention data 4, MoE tensor 1, MoE expert 4).
# The engine alone, with the options the simulation used; dynamo-graph-deployment.yaml
# runs the same options under Dynamo (frontend, router, planner). docs/artifacts.md
set -eu
exec python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --host 0.0.0.0 --port 30000 \
    --tp-size 4 \
    --pp-size 1 \
    --dp-size 4 \
    --enable-dp-attention \
    --ep-size 4 \
    --max-running-requests 128 \
    --scheduler-recv-interval 30 \
    --chunked-prefill-size 8192 \
    --max-prefill-tokens 16384 \
    --max-total-tokens 100000 \
    --page-size 1 \
    --kv-cache-dtype auto \
    --context-length 16384
