package spec

import (
	"fmt"
	"math"
	"strings"
)

// DefaultTraffic is the workload used when the traffic section is omitted.
func DefaultTraffic() Traffic {
	requests := 100
	l := defaultLoad()
	l.Type, l.Concurrency = LoadConcurrency, int(fieldConcurrency.def)
	return Traffic{
		Source: Source{Type: SourceSynthetic, InputTokens: int(fieldInputTokens.def), OutputTokens: int(fieldOutputTokens.def)},
		Load:   l,
		Stop:   Stop{Requests: &requests},
	}
}

var trafficShape = shape{keys: []string{"source", "load", "stop"}}

var loadKeys = []string{"type", "concurrency", "requests_per_second", "sessions_per_second", "seed", "speedup", "agentic_lanes", "fraction"}

var loadAllowed = map[string][]string{
	LoadConcurrency:        {"concurrency"},
	LoadPoisson:            {"requests_per_second", "sessions_per_second", "seed"},
	LoadConstantRate:       {"requests_per_second", "sessions_per_second"},
	LoadTraceTimestamps:    {"speedup", "agentic_lanes"},
	LoadKVCapacityFraction: {"fraction"},
}

var stopShape = shape{keys: []string{"requests", "requests_per_load_unit", "sessions", "sessions_per_load_unit", "max_virtual_time_seconds"}}

func decodeTraffic(d *decoder, root map[string]any) Traffic {
	v, present := root["traffic"]
	if !present {
		return DefaultTraffic()
	}
	o := d.mapping("traffic", v, trafficShape)
	var t Traffic
	if !o.has("source") {
		d.failf("traffic", "missing required key \"source\"; a supplied traffic section is not merged with the default, so give source, load and stop (or omit traffic entirely)")
		return t
	}
	t.Source = decodeSource(d, o.m["source"])
	if !o.has("load") {
		d.failf("traffic", "missing required key \"load\"; add for example load: {type: concurrency, concurrency: 10}")
		return t
	}
	t.Load = decodeLoad(d, o.m["load"])
	// stop: null is the same as no stop section.
	hasStop := o.set("stop")
	if hasStop {
		t.Stop = decodeStop(o.child("stop", stopShape))
	}
	if !d.ok() {
		return t
	}
	checkTraffic(d, &t, hasStop)
	return t
}

func decodeSource(d *decoder, v any) Source {
	var s Source
	m, isMap := v.(map[string]any)
	if !isMap {
		d.failf("traffic.source", "must be a mapping, got %s", describe(v))
		return s
	}
	tag, hasTag := m["type"]
	types := []string{SourceSynthetic, SourceSyntheticSession, SourceTrace}
	if !hasTag {
		d.failf("traffic.source", "missing required key \"type\"; set type to one of %s", strings.Join(types, ", "))
		return s
	}
	s.Type = d.asEnum("traffic.source.type", tag, types...)
	if !d.ok() {
		return s
	}
	// The discriminator tag is part of the path, as in AISimulate's messages.
	path := "traffic.source." + s.Type
	switch s.Type {
	case SourceSynthetic:
		o := d.mapping(path, m, shape{
			keys: []string{"type", "input_tokens", "output_tokens", "lengths"},
			unsupported: map[string]string{
				"images":               "images need an encoder role, which only the analytical engine stack has",
				"cached_prefix_tokens": "cached_prefix_tokens is not supported by this simulator",
			},
		})
		s.InputTokens = int(o.intField(&fieldInputTokens))
		s.OutputTokens = int(o.intField(&fieldOutputTokens))
		if o.set("lengths") {
			s.Lengths = decodeLengths(d, o.p("lengths"), o.m["lengths"])
			if d.ok() {
				checkLengthsFit(d, o.p("lengths"), &s.Lengths, s.InputTokens, s.OutputTokens)
			}
			if s.Lengths.Constant() {
				s.Lengths = Lengths{} // one form of constant lengths
			}
		}
	case SourceSyntheticSession:
		o := d.mapping(path, m, shape{keys: []string{"type", "new_input_tokens_per_turn", "output_tokens_per_turn", "session"}})
		s.NewInputTokensPerTurn = int(o.intField(&fieldNewInputTokensPerTurn))
		s.OutputTokensPerTurn = int(o.intField(&fieldOutputTokensPerTurn))
		if !o.has("session") {
			d.failf(path, "missing required key \"session\"; add for example session: {turns: 4}")
			return s
		}
		so := o.child("session", shape{keys: []string{"turns", "shared_prefix_ratio", "prefix_groups", "inter_turn_delay_ms"}})
		s.Session.Turns = int(so.intField(&fieldTurns))
		s.Session.SharedPrefixRatio = so.floatField(&fieldSharedPrefixRatio)
		s.Session.PrefixGroups = int(so.intField(&fieldPrefixGroups))
		s.Session.InterTurnDelayMs = so.floatField(&fieldInterTurnDelayMs)
		if d.ok() && s.Session.SharedPrefixRatio > 0 && s.Session.PrefixGroups <= 0 {
			d.failf(so.p("prefix_groups"), "prefix_groups must be positive when shared_prefix_ratio is positive; set prefix_groups >= 1 or shared_prefix_ratio: 0")
		}
	case SourceTrace:
		o := d.mapping(path, m, shape{keys: []string{"type", "paths", "format", "block_size", "nested_timestamp_basis"}})
		s.Format = o.enum("format", traceFormatNames(func(TraceFormat) bool { return true })...)
		format, _ := LookupTraceFormat(s.Format)
		s.Paths = decodePaths(o)
		if d.ok() && len(s.Paths) != 1 && format.SinglePath {
			d.failf(o.p("paths"), "trace format '%s' requires exactly one path, got %d (only format %s accepts several shards)",
				s.Format, len(s.Paths), formatNames(traceFormatNames(func(f TraceFormat) bool { return !f.SinglePath })))
		}
		s.BlockSize = o.optInt("block_size", gt(0))
		if s.BlockSize == nil && format.DefaultBlockSize > 0 {
			bs := format.DefaultBlockSize
			s.BlockSize = &bs
		}
		if o.set("nested_timestamp_basis") {
			if !format.NestedTimestamps {
				d.failf(o.p("nested_timestamp_basis"), "nested_timestamp_basis is only valid for trace format '%s'; remove it",
					formatNames(traceFormatNames(func(f TraceFormat) bool { return f.NestedTimestamps })))
			}
			s.NestedTimestampBasis = o.enum("nested_timestamp_basis", "auto", "absolute", "relative")
		}
	}
	return s
}

func decodePaths(o *object) []string {
	v, ok := o.m["paths"]
	if !ok {
		o.d.failf(o.path, "missing required key \"paths\"; add paths: [path/to/trace.jsonl]")
		return nil
	}
	list, isList := v.([]any)
	if !isList {
		o.d.failf(o.p("paths"), "must be a list of strings, got %s (write paths: [%s])", describe(v), "file.jsonl")
		return nil
	}
	paths := make([]string, 0, len(list))
	for i, e := range list {
		s, isStr := e.(string)
		if !isStr {
			o.d.failf(fmt.Sprintf("%s.%d", o.p("paths"), i), "must be a string, got %s", describe(e))
			return nil
		}
		if s == "" {
			o.d.failf(o.p("paths"), "trace paths must contain at least one nonempty path; entry %d is empty", i)
			return nil
		}
		paths = append(paths, s)
	}
	if len(paths) == 0 {
		o.d.failf(o.p("paths"), "trace paths must contain at least one nonempty path")
	}
	return paths
}

func decodeLoad(d *decoder, v any) Load {
	o := d.mapping("traffic.load", v, shape{keys: loadKeys})
	l := defaultLoad()
	l.Type = o.enum("type", LoadConcurrency, LoadPoisson, LoadConstantRate, LoadTraceTimestamps, LoadKVCapacityFraction)
	if !d.ok() {
		return l
	}
	if rejected := o.setOutside(loadKeys[1:], loadAllowed[l.Type]); len(rejected) > 0 {
		d.failf("traffic.load", "traffic.load.type='%s' does not accept %s; allowed fields: %s", l.Type, pyList(rejected), strings.Join(loadAllowed[l.Type], ", "))
		return l
	}
	l.Concurrency = int(fieldConcurrency.def) // also when null
	if c := o.optIntField(&fieldConcurrency); c != nil {
		l.Concurrency = *c
	}
	l.RequestsPerSecond = o.optFloatField(&fieldRequestsPerSecond)
	l.SessionsPerSecond = o.optFloatField(&fieldSessionsPerSecond)
	if s := o.optIntField(&fieldLoadSeed); s != nil {
		l.Seed = uint64(*s)
	}
	if s := o.optFloatField(&fieldSpeedup); s != nil {
		l.Speedup = *s
	}
	l.AgenticLanes = o.optIntField(&fieldAgenticLanes)
	if l.Type == LoadKVCapacityFraction {
		if !o.set("fraction") {
			d.failf("traffic.load", "traffic.load.type='kv_capacity_fraction' requires fraction (the share of the decode or aggregated role's KV capacity, > 0)")
			return l
		}
		l.Fraction = o.floatField(&fieldFraction)
	}
	return l
}

// defaultLoad is a load with the table's defaults of the fields every load type may leave out
// (seed, speedup); the type and its rate or concurrency are the decoder's.
func defaultLoad() Load {
	return Load{Seed: uint64(fieldLoadSeed.def), Speedup: fieldSpeedup.def}
}

func decodeStop(o *object) Stop {
	return Stop{
		Requests:              o.optInt("requests", gt(0)),
		RequestsPerLoadUnit:   o.optFloat("requests_per_load_unit", gt(0)),
		Sessions:              o.optInt("sessions", gt(0)),
		SessionsPerLoadUnit:   o.optFloat("sessions_per_load_unit", gt(0)),
		MaxVirtualTimeSeconds: o.optFloat("max_virtual_time_seconds", gt(0), secondsLimit),
	}
}

// checkTraffic applies the cross-field traffic rules that need no engine information.
func checkTraffic(d *decoder, t *Traffic, hasStop bool) {
	src, load, stop := &t.Source, &t.Load, &t.Stop
	if src.Type == SourceTrace {
		f, _ := LookupTraceFormat(src.Format)
		if load.Type != LoadTraceTimestamps && load.Type != LoadConcurrency {
			d.failf("traffic.load.type", "trace traffic requires trace_timestamps or concurrency load, got '%s'", load.Type)
			return
		}
		if stop.Requests != nil || stop.RequestsPerLoadUnit != nil || stop.Sessions != nil || stop.SessionsPerLoadUnit != nil {
			d.failf("traffic.stop", "trace traffic only accepts max_virtual_time_seconds; remove the count conditions (a trace runs to its end)")
			return
		}
		if f.Load != "" && load.Type != f.Load {
			d.failf("traffic.load.type", "trace format '%s' requires load type %s, got '%s'", f.Name, f.Load, load.Type)
			return
		}
		if f.RejectsVirtualTime && stop.MaxVirtualTimeSeconds != nil {
			d.failf("traffic.stop.max_virtual_time_seconds", "trace format '%s' rejects max_virtual_time_seconds; remove it", f.Name)
			return
		}
		if load.AgenticLanes != nil && !f.Lanes {
			d.failf("traffic.load.agentic_lanes", "agentic_lanes is only valid for trace formats %s, got '%s'",
				formatNames(traceFormatNames(func(f TraceFormat) bool { return f.Lanes })), f.Name)
			return
		}
		return
	}

	// Synthetic sources.
	if load.Type == LoadTraceTimestamps {
		d.failf("traffic.load.type", "synthetic traffic rejects trace_timestamps load; use concurrency, poisson or constant_rate")
		return
	}
	if load.Type == LoadPoisson || load.Type == LoadConstantRate {
		want, other := "requests_per_second", load.SessionsPerSecond
		mine := load.RequestsPerSecond
		if src.Type == SourceSyntheticSession {
			want, other, mine = "sessions_per_second", load.RequestsPerSecond, load.SessionsPerSecond
		}
		if other != nil {
			d.failf("traffic.load", "traffic load rate unit does not match source type: a %s source takes %s", src.Type, want)
			return
		}
		if mine == nil {
			d.failf("traffic.load", "traffic.load.type='%s' requires %s for a %s source", load.Type, want, src.Type)
			return
		}
	}
	if !hasStop {
		d.failf("traffic", "missing required key \"stop\"; synthetic traffic needs a count, for example stop: {requests: 100}")
		return
	}
	if stop.MaxVirtualTimeSeconds != nil {
		d.failf("traffic.stop.max_virtual_time_seconds", "max_virtual_time_seconds is trace-only; stop synthetic traffic with a count instead")
		return
	}
	count, perUnit := "requests", "requests_per_load_unit"
	nCount := stop.Requests != nil
	nPer := stop.RequestsPerLoadUnit != nil
	wrongA, wrongB := stop.Sessions != nil, stop.SessionsPerLoadUnit != nil
	wrongNames := [2]string{"sessions", "sessions_per_load_unit"}
	if src.Type == SourceSyntheticSession {
		count, perUnit = "sessions", "sessions_per_load_unit"
		nCount, nPer = stop.Sessions != nil, stop.SessionsPerLoadUnit != nil
		wrongA, wrongB = stop.Requests != nil, stop.RequestsPerLoadUnit != nil
		wrongNames = [2]string{"requests", "requests_per_load_unit"}
	}
	if wrongA || wrongB {
		name := wrongNames[0]
		if !wrongA {
			name = wrongNames[1]
		}
		d.failf("traffic.stop."+name, "%s does not apply to a %s source; use %s or %s", name, src.Type, count, perUnit)
		return
	}
	if nCount == nPer {
		d.failf("traffic.stop", "traffic.stop requires exactly one count condition: %s or %s", count, perUnit)
		return
	}
	// A kv_capacity_fraction load's unit is known once the KV capacity is
	// (KVFractionConcurrency checks the bound then).
	if n := t.resolvedStop(); nPer && n > maxStopCount && load.Type != LoadKVCapacityFraction {
		d.failf("traffic.stop", "resolves to %g requests; use at most %d", n, maxStopCount)
	}
}

// maxStopCount bounds a load-relative stop count (request ordinals stay within int32 range).
const maxStopCount = 1 << 31

// StopCount is the number of sessions (requests for plain synthetic traffic) the stop rule of
// a validated synthetic source resolves to: the explicit count, or
// max(1, round_half_even(x × load unit)) where the load unit is the concurrency or the rate
// (docs/config.md).
func (t Traffic) StopCount() int { return int(t.resolvedStop()) }

// SyntheticRequests is the number of requests a validated synthetic source will release: its
// stop rule resolved against the load exactly as the simulation resolves it (StopCount), times
// the turns per session for a synthetic-session source. path is the stop key that sets the
// count. ok is false for trace sources, whose size is the trace's. Validation bounds the stop
// count (maxStopCount), and the product is a float64, so it cannot overflow.
func (t Traffic) SyntheticRequests() (n float64, path string, ok bool) {
	if t.Source.Type == SourceTrace {
		return 0, "", false
	}
	st := t.Stop
	switch {
	case st.Requests != nil:
		path = "traffic.stop.requests"
	case st.RequestsPerLoadUnit != nil:
		path = "traffic.stop.requests_per_load_unit"
	case st.Sessions != nil:
		path = "traffic.stop.sessions"
	default:
		path = "traffic.stop.sessions_per_load_unit"
	}
	n = float64(t.StopCount())
	if t.Source.Type == SourceSyntheticSession {
		n *= float64(t.Source.Session.Turns)
	}
	return n, path, true
}

// resolvedStop is StopCount as a float, before the bound check.
func (t Traffic) resolvedStop() float64 {
	st := t.Stop
	switch {
	case st.Requests != nil:
		return float64(*st.Requests)
	case st.Sessions != nil:
		return float64(*st.Sessions)
	}
	var x float64
	switch {
	case st.RequestsPerLoadUnit != nil:
		x = *st.RequestsPerLoadUnit
	case st.SessionsPerLoadUnit != nil:
		x = *st.SessionsPerLoadUnit
	}
	unit := float64(t.Load.Concurrency)
	if t.Load.RequestsPerSecond != nil {
		unit = *t.Load.RequestsPerSecond
	} else if t.Load.SessionsPerSecond != nil {
		unit = *t.Load.SessionsPerSecond
	}
	return max(1, math.RoundToEven(x*unit))
}

// checkTrafficEngine applies the traffic rules that depend on the engine section.
func checkTrafficEngine(d *decoder, cfg *Config) {
	src := cfg.Traffic.Source
	if src.Type != SourceTrace || cfg.Engine.Mode == ModeAggregated {
		return
	}
	if f, _ := LookupTraceFormat(src.Format); f.AggregatedOnly {
		d.failf("engine.mode", "trace format '%s' requires engine.mode: aggregated", src.Format)
	}
}

// ResolveKVCapacityFraction turns a kv_capacity_fraction load into the concurrency load it
// stands for, by the reference's rule (docs/config.md, "kv_capacity_fraction"):
// capacityTokens is num_gpu_blocks × block_size × attention_data × replicas of the decode
// role (disaggregated) or the aggregated role; one request is expected to hold
// isl + osl // 2 tokens (the source's input and output tokens, per turn for sessions: its
// prompt plus half its output on average); the concurrency is
// max(1, floor(fraction × (capacityTokens // expected))). role names the role in a message.
// The load-relative stop then resolves against this concurrency and is bounded as
// validation bounds the others. Other loads are left alone.
func (t *Traffic) ResolveKVCapacityFraction(role string, capacityTokens int64) *Error {
	if t.Load.Type != LoadKVCapacityFraction {
		return nil
	}
	isl, osl := t.Source.InputTokens, t.Source.OutputTokens
	if t.Source.Type == SourceSyntheticSession {
		isl, osl = t.Source.NewInputTokensPerTurn, t.Source.OutputTokensPerTurn
	}
	expected := int64(isl + osl/2)
	if capacityTokens < expected {
		return &Error{Path: "traffic.load", Msg: fmt.Sprintf("%s KV capacity %d tokens cannot hold one request averaging %d tokens; give the role more KV capacity or use a concurrency load", role, capacityTokens, expected)}
	}
	c := math.Floor(t.Load.Fraction * float64(capacityTokens/expected))
	if c > maxStopCount {
		return &Error{Path: "traffic.load.fraction", Msg: fmt.Sprintf("resolves to a concurrency of %g (%s KV capacity %d tokens, %d per request); use a smaller fraction", c, role, capacityTokens, expected)}
	}
	t.Load.Type, t.Load.Concurrency = LoadConcurrency, max(1, int(c))
	if n := t.resolvedStop(); n > maxStopCount {
		return &Error{Path: "traffic.stop", Msg: fmt.Sprintf("resolves to %g requests against the concurrency %d of the kv_capacity_fraction load; use at most %d", n, t.Load.Concurrency, maxStopCount)}
	}
	return nil
}
