package spec

import (
	"errors"
	"testing"
)

// CheckLoadedTrace refuses an enabled planner only for a format whose rule depends on the
// content (dynamo) and only when the trace turned out to be a graph.
func TestCheckLoadedTrace(t *testing.T) {
	planner := "planner: {policy: enabled, enable_throughput_scaling: false, enable_load_scaling: true}\n"
	cfg, err := LoadConfig([]byte(traceYAML+planner), []string{"traffic.source.format=dynamo"})
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckLoadedTrace(cfg, false); err != nil {
		t.Fatalf("standard dynamo trace: %v", err)
	}
	var se *Error
	if err := CheckLoadedTrace(cfg, true); !errors.As(err, &se) || se.Path != "planner.policy" ||
		se.Msg != `trace format "dynamo" with agent_context requires planner.policy=disabled` {
		t.Fatalf("agentic dynamo trace: %v", err)
	}
	cfg.Planner.Policy = PlannerDisabled
	if err := CheckLoadedTrace(cfg, true); err != nil {
		t.Fatalf("disabled planner: %v", err)
	}
	cfg, err = LoadConfig([]byte(traceYAML+planner), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckLoadedTrace(cfg, true); err != nil {
		t.Fatalf("mooncake: %v", err)
	}
}

// Every format of the schema's enum has one row, and unknown tags have none.
func TestTraceFormatTable(t *testing.T) {
	for _, name := range []string{FormatMooncake, FormatMooncakeDelta, FormatAgenticMooncake, FormatAppliedComputeAgentic, FormatDynamo, FormatWeka} {
		if f, ok := LookupTraceFormat(name); !ok || f.Name != name {
			t.Errorf("%s: %+v %v", name, f, ok)
		}
	}
	if _, ok := LookupTraceFormat("csv"); ok {
		t.Error("csv has a row")
	}
	if len(TraceFormats) != 6 {
		t.Errorf("%d formats", len(TraceFormats))
	}
}
