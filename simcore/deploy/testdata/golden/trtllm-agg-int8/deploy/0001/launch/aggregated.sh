#!/bin/sh
# The aggregated role of aisim-0001-trtllm-agg: one worker of 3, 8 × h200_sxm GPUs (tensor 4, pipeline 2, attention data 1, MoE tensor 1, MoE expert 1).
# The engine alone, with the options the simulation used; dynamo-graph-deployment.yaml
# runs the same options under Dynamo (frontend, router, planner). docs/artifacts.md
set -eu
exec trtllm-serve meta-llama/Meta-Llama-3.1-8B --backend pytorch --host 0.0.0.0 --port 8000 \
    --extra_llm_api_options "$(dirname "$0")/aggregated.yaml"
