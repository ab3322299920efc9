#!/bin/sh
# The decode role of aisim-0001-sglang-disagg: one worker of 2, 2 × h100_sxm GPUs (tensor 2, pipeline 1, attention data 1, MoE tensor 1, MoE expert 1).
# The engine alone, with the options the simulation used; dynamo-graph-deployment.yaml
# runs the same options under Dynamo (frontend, router, planner). docs/artifacts.md
set -eu
exec python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3.1-8B --host 0.0.0.0 --port 30000 \
    --tp-size 2 \
    --pp-size 1 \
    --max-running-requests 256 \
    --chunked-prefill-size 8192 \
    --max-prefill-tokens 16384 \
    --mem-fraction-static 0.85 \
    --page-size 1 \
    --disable-radix-cache \
    --kv-cache-dtype fp8_e4m3 \
    --disaggregation-mode decode \
    --disaggregation-transfer-backend nixl
