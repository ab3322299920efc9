package spec

import (
	"fmt"
	"strings"
)

// Trace format tags of traffic.source.format.
const (
	FormatMooncake              = "mooncake"
	FormatMooncakeDelta         = "mooncake-delta"
	FormatAgenticMooncake       = "agentic_mooncake"
	FormatAppliedComputeAgentic = "applied_compute_agentic"
	FormatDynamo                = "dynamo"
	FormatWeka                  = "weka"
)

// DefaultTraceBlockSize is the trace hash-block size of every format without embedded data.
const DefaultTraceBlockSize = 512

// PlannerRule says when a trace format forbids planner.policy=enabled.
type PlannerRule int

// Planner rules of the trace formats (docs/config.md).
const (
	// PlannerAllowed: the planner may run.
	PlannerAllowed PlannerRule = iota
	// PlannerOff: the planner must be disabled, checked while validating.
	PlannerOff
	// PlannerOffForGraphs: the planner must be disabled when the loaded trace turns out
	// to be an agentic dependency graph (a dynamo trace with agent_context), checked by
	// CheckLoadedTrace once the file was read.
	PlannerOffForGraphs
)

// TraceFormat holds the traits of one trace format that the configuration rules read.
// Every rule about trace formats, here and in the trace readers, consults TraceFormats and
// nothing else (docs/traces.md).
type TraceFormat struct {
	Name string
	// SinglePath: paths must hold exactly one entry (a file, or for weka a file or a
	// directory); only dynamo merges several shards.
	SinglePath bool
	// Load is the only load type the format accepts; "" accepts trace_timestamps or
	// concurrency (every trace accepts one of those two).
	Load string
	// RejectsVirtualTime: traffic.stop.max_virtual_time_seconds is refused (the agentic
	// replay runs every play to its end).
	RejectsVirtualTime bool
	// Lanes: traffic.load.agentic_lanes is accepted.
	Lanes bool
	// AggregatedOnly: engine.mode must be aggregated.
	AggregatedOnly bool
	// Planner is when planner.policy must be disabled.
	Planner PlannerRule
	// DefaultBlockSize is traffic.source.block_size when unset; 0 means the block size is
	// taken from the trace itself (an explicit value must then equal it).
	DefaultBlockSize int
	// NestedTimestamps: traffic.source.nested_timestamp_basis is accepted (subagent request
	// times may be relative to their marker).
	NestedTimestamps bool
}

// TraceFormats is the table of trace formats in the order of docs/traces.md.
var TraceFormats = []TraceFormat{
	{Name: FormatMooncake, SinglePath: true, DefaultBlockSize: DefaultTraceBlockSize},
	{Name: FormatMooncakeDelta, SinglePath: true, AggregatedOnly: true, Planner: PlannerOff, DefaultBlockSize: DefaultTraceBlockSize},
	{Name: FormatAgenticMooncake, SinglePath: true, Load: LoadTraceTimestamps, RejectsVirtualTime: true, Lanes: true,
		AggregatedOnly: true, Planner: PlannerOff, DefaultBlockSize: DefaultTraceBlockSize},
	{Name: FormatAppliedComputeAgentic, SinglePath: true, Load: LoadConcurrency, DefaultBlockSize: DefaultTraceBlockSize},
	{Name: FormatDynamo, Lanes: true, Planner: PlannerOffForGraphs},
	{Name: FormatWeka, SinglePath: true, Load: LoadTraceTimestamps, RejectsVirtualTime: true, Lanes: true,
		AggregatedOnly: true, Planner: PlannerOff, NestedTimestamps: true},
}

// LookupTraceFormat returns the traits of a format tag; ok is false for an unknown tag.
func LookupTraceFormat(name string) (f TraceFormat, ok bool) {
	for _, f := range TraceFormats {
		if f.Name == name {
			return f, true
		}
	}
	return TraceFormat{}, false
}

// traceFormatNames lists the tags of the formats whose trait keep holds, in table order.
func traceFormatNames(keep func(TraceFormat) bool) []string {
	var names []string
	for _, f := range TraceFormats {
		if keep(f) {
			names = append(names, f.Name)
		}
	}
	return names
}

// formatNames joins names as "a, b and c".
func formatNames(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// CheckLoadedTrace applies the trace rules that depend on the file content: graph is true
// when the loaded trace is an agentic dependency graph. It returns nil or a *Error.
func CheckLoadedTrace(cfg *Config, graph bool) error {
	src := cfg.Traffic.Source
	if src.Type != SourceTrace || cfg.Planner.Policy != PlannerEnabled {
		return nil
	}
	if f, _ := LookupTraceFormat(src.Format); f.Planner == PlannerOffForGraphs && graph {
		return &Error{Path: "planner.policy", Msg: fmt.Sprintf("trace format %q with agent_context requires planner.policy=disabled", src.Format)}
	}
	return nil
}
