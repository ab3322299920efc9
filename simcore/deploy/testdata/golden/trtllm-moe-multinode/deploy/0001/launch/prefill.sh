#!/bin/sh
# The prefill role of aisim-0001-trtllm-disagg: one worker of 1, 16 × h200_sxm GPUs (tensor 16, pipeline 1, attention data 1, MoE tensor 2, MoE expert 8).
# A worker spans 2 nodes of 8 GPUs: start it with the backend's multi-node launcher.
# The engine alone, with the options the simulation used; dynamo-graph-deployment.yaml
# runs the same options under Dynamo (frontend, router, planner). docs/artifacts.md
set -eu
exec trtllm-serve deepseek-ai/DeepSeek-R1 --backend pytorch --host 0.0.0.0 --port 8000 \
    --extra_llm_api_options "$(dirname "$0")/prefill.yaml"
