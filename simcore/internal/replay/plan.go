// Package replay is the virtual-time event loop: it releases the workload, routes requests
// to pools of workers, runs their passes, hands disaggregated requests from prefill to decode
// and collects what happened to every request (docs/semantics/simulation.md §2, §11, §12).
package replay

import (
	"aisimulate/simcore/internal/engine"
	"aisimulate/simcore/internal/planner"
	"aisimulate/simcore/internal/router"
	"aisimulate/simcore/internal/traffic"
)

// Plan is a lowered, validated prediction: everything the loop needs and nothing else.
type Plan struct {
	Disaggregated bool
	// Pools: Agg alone, or Prefill and Decode.
	Agg, Prefill, Decode *PoolPlan
	Workload             traffic.Workload
	// CutoffMs is 1000 × max_virtual_time_seconds, 0 for none.
	CutoffMs float64
	Transfer Transfer
	Capture  bool
	// Progress is called now and then with the fraction of sessions finished.
	Progress func(float64)
	// ShareEverything treats every block as shareable (no unique-block shortcut); results
	// must not change, which tests check.
	ShareEverything bool
	// Planner is nil when the planner is disabled.
	Planner *PlannerPlan
	// Stop, when set, ends a closed-loop replay once its means have settled (StopRule).
	Stop *StopRule
	// FrontendServiceMs is the serving frontend's serial time per request (a calibration's
	// frontend_service_ms, docs/calibration.md "Frontend queue"): released requests pass
	// the frontend one at a time, first come first served, each taking this long, before
	// they are routed; 0 routes every request at its release.
	FrontendServiceMs float64
}

// PoolPlan is one pool's workers.
type PoolPlan struct {
	Replicas      int
	DP            int
	Rank          engine.RankConfig
	GPUsPerWorker int
	Router        router.Config
	StartupMs     float64
}

// Transfer prices the disaggregated KV hand-off (docs/semantics/simulation.md §11.4).
type Transfer struct {
	BytesPerToken int64
	// BandwidthGBs is decimal GB/s; 0 means no delay (null bandwidth).
	BandwidthGBs float64
	FullPrompt   bool
	// HandoffMs is the fixed per-request hand-off latency (kv_transfer.handoff_ms, auto
	// resolved), added to every transfer's bandwidth term.
	HandoffMs float64
}

// PlannerPlan configures the planner: its settings, roles in pool order (agg, or prefill
// then decode).
type PlannerPlan struct {
	Settings planner.Settings
}
