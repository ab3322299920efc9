#!/bin/sh
# The decode role of aisim-0001-trtllm-disagg: one worker of 1, 8 × h200_sxm GPUs (tensor 1, pipeline 1, attention data 8, MoE tensor 1, MoE expert 8).
# The engine alone, with the options the simulation used; dynamo-graph-deployment.yaml
# runs the same options under Dynamo (frontend, router, planner). docs/artifacts.md
set -eu
exec trtllm-serve deepseek-ai/DeepSeek-R1 --backend pytorch --host 0.0.0.0 --port 8000 \
    --extra_llm_api_options "$(dirname "$0")/decode.yaml"
