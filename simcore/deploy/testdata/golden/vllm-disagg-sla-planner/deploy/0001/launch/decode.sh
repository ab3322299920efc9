#!/bin/sh
# The decode role of aisim-0001-vllm-disagg: one worker of 2, 2 × h100_sxm GPUs (tensor 2, pipeline 1, attention data 1, MoE tensor 1, MoE expert 1).
# The engine alone, with the options the simulation used; dynamo-graph-deployment.yaml
# runs the same options under Dynamo (frontend, router, planner). docs/artifacts.md
set -eu
exec vllm serve meta-llama/Meta-Llama-3.1-8B --host 0.0.0.0 --port 8000 \
    --tensor-parallel-size 2 \
    --pipeline-parallel-size 1 \
    --max-num-batched-tokens 8192 \
    --max-num-seqs 256 \
    --gpu-memory-utilization 0.9 \
    --block-size 64 \
    --enable-prefix-caching \
    --kv-cache-dtype bfloat16 \
    --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'
