package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
)

// ProfileSchemaVersion is the calibration-profile format this build reads and writes
// (docs/calibration.md, "The profile"). A profile of another version is refused.
const ProfileSchemaVersion = 1

// MaxProfileBytes is the largest calibration profile read, and MaxProfileEntries the most
// deployments one profile may hold (docs/robustness.md, "Limits").
const (
	MaxProfileBytes   = 4 << 20
	MaxProfileEntries = 1000
)

// Profile is a calibration profile: what `aisimulate calibrate` fitted on a cluster's
// measurements, one entry per measured deployment (docs/calibration.md).
type Profile struct {
	SchemaVersion int            `json:"schema_version"`
	Program       string         `json:"program"`
	Entries       []ProfileEntry `json:"entries"`
}

// ProfileEntry is the calibration of one deployment.
type ProfileEntry struct {
	Scope      ProfileScope      `json:"scope"`
	Provenance ProfileProvenance `json:"provenance"`
	Parameters ProfileParameters `json:"parameters"`
	Residuals  ProfileResiduals  `json:"residuals"`
	Domain     ProfileDomain     `json:"domain"`
}

// ProfileScope is the deployment an entry was measured on: the model (catalog id), GPU,
// backend and its version, serving mode, quantisation and the parallelism of each role.
type ProfileScope struct {
	Model          string                 `json:"model"`
	Hardware       string                 `json:"hardware"`
	Backend        string                 `json:"backend"`
	BackendVersion string                 `json:"backend_version"`
	Mode           string                 `json:"mode"`
	Quantization   ProfileQuantization    `json:"quantization"`
	Roles          map[string]ProfileRole `json:"roles"`
	// Lengths is the length draw the measurements' clients used (docs/calibration.md,
	// "Length draws"); nil (omitted) for constant lengths.
	Lengths *Lengths `json:"lengths,omitempty"`
}

// ProfileQuantization is the resolved quantisation of the deployment's GEMMs, experts and
// KV cache.
type ProfileQuantization struct {
	Gemm    string `json:"gemm"`
	MoE     string `json:"moe"`
	KVCache string `json:"kv_cache"`
}

// ProfileRole is one role's parallelism (replicas are not part of the scope: they do not
// change a rank's pass times).
type ProfileRole struct {
	Tensor        int `json:"tensor"`
	Pipeline      int `json:"pipeline"`
	AttentionData int `json:"attention_data"`
	MoeTensor     int `json:"moe_tensor"`
	MoeExpert     int `json:"moe_expert"`
}

// ProfileProvenance says what an entry was fitted on: every input file with its SHA-256 and
// format, and the dates the measurements record (never the time of fitting).
type ProfileProvenance struct {
	Inputs     []ProfileInput `json:"inputs"`
	MeasuredOn []string       `json:"measured_on"`
}

// ProfileInput is one measurement file.
type ProfileInput struct {
	File   string `json:"file"`
	Format string `json:"format"`
	SHA256 string `json:"sha256"`
}

// ProfileParameters are the fitted terms (docs/calibration.md, "Parameters"): scales of the
// prefill and decode op sums (1 = the default model), time added to every prefill and decode
// pass, to every request's frontend latency and to every disaggregated hand-off (ms).
type ProfileParameters struct {
	PrefillScale  float64 `json:"prefill_scale"`
	PrefillPassMs float64 `json:"prefill_pass_ms"`
	DecodeScale   float64 `json:"decode_scale"`
	DecodePassMs  float64 `json:"decode_pass_ms"`
	FrontendMs    float64 `json:"frontend_ms"`
	HandoffMs     float64 `json:"handoff_ms"`
	// KVCapacityScale multiplies the KV capacity of every matching role (absent: 1;
	// docs/calibration.md, "KV capacity").
	KVCapacityScale *float64 `json:"kv_capacity_scale,omitempty"`
	// FrontendServiceMs is the serving frontend's serial time per request: requests pass
	// it one at a time before they are scheduled (absent: 0, no queue; docs/calibration.md,
	// "Frontend queue").
	FrontendServiceMs *float64 `json:"frontend_service_ms,omitempty"`
	// DecodeMaxSequences caps the requests a disaggregated decode rank runs at once (its
	// scheduler.max_sequences, lowered to it; absent: no cap; docs/calibration.md, "Decode
	// batch cap").
	DecodeMaxSequences *int `json:"decode_max_sequences,omitempty"`
}

// ProfileResiduals are the calibrated model's residuals r = ln(measured / calibrated) on the
// entry's measurements, per metric.
type ProfileResiduals struct {
	TTFT             ProfileBand `json:"ttft"`
	TPOT             ProfileBand `json:"tpot"`
	E2E              ProfileBand `json:"e2e"`
	OutputThroughput ProfileBand `json:"output_throughput"`
}

// ProfileBand summarises n residuals: their mean, root mean square, smallest and largest.
type ProfileBand struct {
	N    int     `json:"n"`
	Mean float64 `json:"mean"`
	RMS  float64 `json:"rms"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
}

// ProfileDomain is the validity domain: the ranges of load, ISL and OSL measured
// ([lowest, highest]; a load kind no measurement used is [0, 0]).
type ProfileDomain struct {
	Concurrency [2]float64 `json:"concurrency"`
	RequestRate [2]float64 `json:"request_rate"`
	ISL         [2]float64 `json:"isl"`
	OSL         [2]float64 `json:"osl"`
}

// Physical ranges of the profile parameters (docs/calibration.md, "Physical ranges"). The
// scales' lower bound here is a sanity bound; the binding one depends on the role's
// default model (perf.Default.CorrectionFloor) and is checked where the profile is applied.
const (
	MinProfileScale  = 0.1
	MaxProfileScale  = 10
	MaxProfilePassMs = 1000
	MaxProfileLatMs  = 10000
	// MinProfileKVScale and MaxProfileKVScale bound the KV-capacity scale: the fit only
	// lowers a capacity (a measurement the configured capacity cannot hold is refused
	// instead, docs/calibration.md), and never below a quarter of it — what a KV data type
	// of half the bytes and half the memory left to the cache take away together.
	MinProfileKVScale = 0.25
	MaxProfileKVScale = 1.0
	// MaxProfileFrontendServiceMs bounds the frontend's serial time per request as a pass
	// time is bounded: a second per request would cap a deployment at one request a second.
	MaxProfileFrontendServiceMs = MaxProfilePassMs
	// MaxProfileDecodeSequences bounds the decode batch cap: a scheduler limit of a decode
	// rank, at least one request; the fit never sets it above the configuration's
	// max_sequences (256 by default), and the bound leaves room for a configuration that
	// allows more.
	MaxProfileDecodeSequences = 65536
)

// LoadProfile decodes a calibration profile strictly (unknown keys, wrong types, a schema
// version other than ProfileSchemaVersion, non-finite or out-of-range numbers, entries
// without scope) and returns it; errors name the field by its dotted path.
func LoadProfile(data []byte) (*Profile, *Error) {
	if len(data) > MaxProfileBytes {
		return nil, &Error{Msg: fmt.Sprintf("larger than %d MiB: not a calibration profile", MaxProfileBytes>>20)}
	}
	var p Profile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, &Error{Msg: "not a calibration profile: " + strings.TrimPrefix(err.Error(), "json: ")}
	}
	if dec.More() {
		return nil, &Error{Msg: "not a calibration profile: more than one JSON value"}
	}
	var tree any
	if err := json.Unmarshal(data, &tree); err == nil {
		if bad := misspelledKey(tree, reflect.TypeFor[Profile](), ""); bad != "" {
			return nil, &Error{Path: bad, Msg: "unknown key (keys are lowercase, as docs/calibration.md spells them); the profile is damaged or hand-edited (re-run aisimulate calibrate)"}
		}
	}
	if p.SchemaVersion != ProfileSchemaVersion {
		return nil, &Error{Path: "schema_version", Msg: fmt.Sprintf("is %d; this build reads version %d (re-run aisimulate calibrate)", p.SchemaVersion, ProfileSchemaVersion)}
	}
	if len(p.Entries) == 0 || len(p.Entries) > MaxProfileEntries {
		return nil, &Error{Path: "entries", Msg: fmt.Sprintf("must hold 1 to %d entries, got %d", MaxProfileEntries, len(p.Entries))}
	}
	for i := range p.Entries {
		if err := p.Entries[i].check(fmt.Sprintf("entries[%d]", i)); err != nil {
			return nil, err
		}
	}
	return &p, nil
}

// check validates one entry; path is its position.
func (e *ProfileEntry) check(path string) *Error {
	s := e.Scope
	for _, f := range []struct{ k, v string }{{"model", s.Model}, {"hardware", s.Hardware}, {"backend", s.Backend}, {"mode", s.Mode}} {
		if f.v == "" {
			return &Error{Path: path + ".scope." + f.k, Msg: "missing"}
		}
	}
	if s.Mode != ModeAggregated && s.Mode != ModeDisaggregated {
		return &Error{Path: path + ".scope.mode", Msg: fmt.Sprintf("%q is neither %s nor %s", s.Mode, ModeAggregated, ModeDisaggregated)}
	}
	p := e.Parameters
	for _, f := range []struct {
		k      string
		v      float64
		lo, hi float64
	}{
		{"prefill_scale", p.PrefillScale, MinProfileScale, MaxProfileScale},
		{"decode_scale", p.DecodeScale, MinProfileScale, MaxProfileScale},
		{"prefill_pass_ms", p.PrefillPassMs, -MaxProfilePassMs, MaxProfilePassMs},
		{"decode_pass_ms", p.DecodePassMs, -MaxProfilePassMs, MaxProfilePassMs},
		{"frontend_ms", p.FrontendMs, -MaxProfileLatMs, MaxProfileLatMs},
		{"handoff_ms", p.HandoffMs, -MaxProfileLatMs, MaxProfileLatMs},
		{"kv_capacity_scale", kvScale(p.KVCapacityScale), MinProfileKVScale, MaxProfileKVScale},
		{"frontend_service_ms", frontendService(p.FrontendServiceMs), 0, MaxProfileFrontendServiceMs},
		{"decode_max_sequences", decodeCap(p.DecodeMaxSequences), 1, MaxProfileDecodeSequences},
	} {
		if math.IsNaN(f.v) || f.v < f.lo || f.v > f.hi {
			return &Error{Path: path + ".parameters." + f.k, Msg: fmt.Sprintf("%g is outside its physical range [%g, %g]; the profile is damaged or hand-edited (re-run aisimulate calibrate)", f.v, f.lo, f.hi)}
		}
	}
	r := e.Residuals
	for _, b := range []struct {
		k string
		b ProfileBand
	}{{"ttft", r.TTFT}, {"tpot", r.TPOT}, {"e2e", r.E2E}, {"output_throughput", r.OutputThroughput}} {
		if b.b.N < 0 || math.Abs(b.b.Mean) > 10 || b.b.RMS < 0 || b.b.RMS > 10 || b.b.Min > b.b.Max || math.Abs(b.b.Min) > 10 || math.Abs(b.b.Max) > 10 {
			return &Error{Path: path + ".residuals." + b.k, Msg: "is not a residual summary (n ≥ 0, |log residuals| ≤ 10, min ≤ max)"}
		}
	}
	d := e.Domain
	for _, f := range []struct {
		k string
		v [2]float64
	}{{"concurrency", d.Concurrency}, {"request_rate", d.RequestRate}, {"isl", d.ISL}, {"osl", d.OSL}} {
		if f.v[0] < 0 || f.v[1] < f.v[0] || math.IsInf(f.v[1], 0) {
			return &Error{Path: path + ".domain." + f.k, Msg: "must be [lowest, highest] with 0 ≤ lowest ≤ highest"}
		}
	}
	return nil
}

// frontendService is a profile's frontend service time, 0 when absent.
func frontendService(s *float64) float64 {
	if s == nil {
		return 0
	}
	return *s
}

// kvScale is a profile's KV-capacity scale, 1 when absent.
func kvScale(s *float64) float64 {
	if s == nil {
		return 1
	}
	return *s
}

// decodeCap is a profile's decode batch cap as checked against its range: 1 (in range)
// when absent.
func decodeCap(n *int) float64 {
	if n == nil {
		return 1
	}
	return float64(*n)
}
