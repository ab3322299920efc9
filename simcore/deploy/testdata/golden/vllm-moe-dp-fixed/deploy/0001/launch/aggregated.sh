#!/bin/sh
# The aggregated role of aisim-0001-vllm-agg: one worker of 1, 4 × h200_sxm GPUs (tensor 2, pipeline 1, attention data 2, MoE tensor 1, MoE expert 4).
# The engine alone, with the options the simulation used; dynamo-graph-deployment.yaml
# runs the same options under Dynamo (frontend, router, planner). docs/artifacts.md
set -eu
exec vllm serve Qwen/Qwen3-30B-A3B --host 0.0.0.0 --port 8000 \
    --tensor-parallel-size 2 \
    --pipeline-parallel-size 1 \
    --data-parallel-size 2 \
    --enable-expert-parallel \
    --max-num-batched-tokens 16384 \
    --max-num-seqs 512 \
    --num-gpu-blocks-override 4000 \
    --block-size 32 \
    --no-enable-prefix-caching \
    --kv-cache-dtype fp8 \
    --max-model-len 16384
