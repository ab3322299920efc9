package jsapi

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"aisimulate/simcore"
	"aisimulate/wasm/jsapi/recview"
)

func readSmall(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../../examples/recommend-small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// drive runs a whole recommendation through Next/Observe, evaluating each round's requests
// with EvaluateJSON in reverse order (as a pool finishing out of order would) and placing
// the outcomes by request index.
func drive(t *testing.T, rc *Recommendation) (*RecommendResult, []recview.Point) {
	t.Helper()
	var live []recview.Point
	for {
		reqs, done, e := rc.Next()
		if e != nil {
			t.Fatal(e.Message)
		}
		if done {
			break
		}
		outs := make([]string, len(reqs))
		for i := len(reqs) - 1; i >= 0; i-- {
			outs[i] = EvaluateJSON(reqs[i], nil)
		}
		if e := rc.Observe(outs); e != nil {
			t.Fatal(e.Message)
		}
		var pts []recview.Point
		if err := json.Unmarshal([]byte(rc.NewPoints()), &pts); err != nil {
			t.Fatal(err)
		}
		live = append(live, pts...)
	}
	res, e := rc.Result()
	if e != nil {
		t.Fatal(e.Message)
	}
	return res, live
}

// A recommendation driven round by round gives simcore.Recommend's bytes.
func TestRecommendationMatchesSimcoreRecommend(t *testing.T) {
	yamlText := readSmall(t)
	wall := 1.0
	rc, e := StartRecommendation(RecommendRequest{ConfigName: "recommend-small.yaml", YAML: yamlText, FixedWallTimeMs: &wall})
	if e != nil {
		t.Fatal(e.Message)
	}
	if rc.Parallelism() != 4 {
		t.Errorf("parallelism = %d, want optimizer.parallelism 4", rc.Parallelism())
	}
	got, live := drive(t, rc)
	want, err := simcore.Recommend(simcore.RecommendInput{ConfigName: "recommend-small.yaml", ConfigYAML: yamlText,
		ModuleVersion: simcore.Version, FixedWallTimeMs: &wall})
	if err != nil {
		t.Fatal(err)
	}
	if got.JSON != string(want.JSON) || got.CSV != string(want.CSV) || got.Feasible != want.Feasible {
		t.Fatal("recommendation.json / .csv differ from simcore.Recommend")
	}
	if len(got.Configs) != len(want.Configs) {
		t.Fatalf("%d configs, want %d", len(got.Configs), len(want.Configs))
	}
	for i := range got.Configs {
		if got.Configs[i].Name != want.Configs[i].Name || !bytes.Equal(got.Configs[i].Data, want.Configs[i].Data) {
			t.Errorf("config %d differs", i)
		}
	}
	var v recview.View
	if err := json.Unmarshal([]byte(got.View), &v); err != nil {
		t.Fatal(err)
	}
	if v.XKey != "throughput_per_gpu" || v.YKey != "throughput_per_user" || v.Target != "goodput" {
		t.Errorf("view keys %q %q %q", v.XKey, v.YKey, v.Target)
	}
	if len(v.Rows) != len(want.Rows) {
		t.Fatalf("%d rows, want %d", len(v.Rows), len(want.Rows))
	}
	for i, r := range v.Rows {
		if r.Rank != i+1 || r.CandidateID != want.Rows[i].Candidate.ID || r.Config != string(want.Configs[i].Data) {
			t.Errorf("row %d = %s rank %d", i, r.CandidateID, r.Rank)
		}
	}
	// One point per simulated candidate (a candidate with metrics in recommendation.json).
	var doc struct {
		Candidates []struct {
			ID      string         `json:"candidate_id"`
			Status  string         `json:"status"`
			Metrics map[string]any `json:"metrics"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal(want.JSON, &doc); err != nil {
		t.Fatal(err)
	}
	var simulated []string
	for _, c := range doc.Candidates {
		if c.Metrics != nil {
			simulated = append(simulated, c.ID+"/"+c.Status)
		}
	}
	var points []string
	for _, p := range v.Points {
		points = append(points, p.CandidateID+"/"+p.Status)
		if p.Feasible != (p.Status == "feasible") || p.X == nil || p.Y == nil || *p.X <= 0 || *p.Y <= 0 {
			t.Errorf("point %+v", p)
		}
		if !strings.Contains(p.Summary, "× TP") || !strings.Contains(p.Config, "engine:") {
			t.Errorf("point %s summary %q", p.CandidateID, p.Summary)
		}
	}
	if strings.Join(points, ",") != strings.Join(simulated, ",") || len(points) == 0 {
		t.Errorf("points %v\nsimulated %v", points, simulated)
	}
	// The points reported round by round are the final ones without ranks.
	if len(live) != len(v.Points) {
		t.Fatalf("%d live points, %d final", len(live), len(v.Points))
	}
	for i, p := range live {
		want := v.Points[i]
		want.Rank = 0
		if p.CandidateID != want.CandidateID || p.Status != want.Status || *p.X != *want.X || *p.Y != *want.Y || p.Rank != 0 || p.Config != want.Config {
			t.Errorf("live point %d = %+v, want %+v", i, p, want)
		}
	}
}

func TestRecommendationRoundProtocol(t *testing.T) {
	rc, e := StartRecommendation(RecommendRequest{YAML: readSmall(t)})
	if e != nil {
		t.Fatal(e.Message)
	}
	if _, e := rc.Result(); e == nil {
		t.Error("Result before the search finished")
	}
	if e := rc.Observe(nil); e == nil {
		t.Error("Observe without a round")
	}
	reqs, done, e := rc.Next()
	if e != nil || done || len(reqs) == 0 || len(reqs) > 4 {
		t.Fatalf("first round: %d requests, done %v, %v", len(reqs), done, e)
	}
	if _, _, e := rc.Next(); e == nil {
		t.Error("Next before Observe")
	}
	if e := rc.Observe(reqs[:len(reqs)-1]); e == nil || !strings.Contains(e.Message, "outcomes for") {
		t.Errorf("short round: %v", e)
	}
	var req simcore.EvaluationRequest
	if err := json.Unmarshal([]byte(reqs[0]), &req); err != nil || req.ConfigName != "recommendation.yaml" || req.BudgetSteps != 600*simcore.WorkStepsPerSecond {
		t.Errorf("request %+v, %v", req, err)
	}
}

func TestStartRecommendationReportsConfigErrors(t *testing.T) {
	_, e := StartRecommendation(RecommendRequest{ConfigName: "r.yaml", YAML: readSmall(t), Sets: []string{"optimization.target=fastest"}})
	if e == nil || e.Kind != KindConfig || e.Path != "optimization.target" || !strings.HasPrefix(e.Message, "r.yaml: optimization.target: ") {
		t.Fatalf("err = %+v", e)
	}
	_, e = StartRecommendation(RecommendRequest{YAML: []byte("engine: {model: {choices: [a, b]}}\n")})
	if e == nil || e.Kind != KindConfig || !strings.HasPrefix(e.Message, "recommendation.yaml: ") {
		t.Fatalf("err = %+v", e)
	}
}

func TestEvaluateJSONAnswersMalformedRequests(t *testing.T) {
	out := EvaluateJSON("{", nil)
	o, err := simcore.DecodeOutcome([]byte(out))
	if err != nil || o.Status != "failed" || !strings.HasPrefix(o.Reason, "malformed evaluation request: ") {
		t.Errorf("outcome %s: %+v %v", out, o, err)
	}
}

// With optimization.gpu_hour_cost the Recommend view's rows carry each candidate's cost.
func TestRecommendViewCarriesCosts(t *testing.T) {
	rc, e := StartRecommendation(RecommendRequest{YAML: readSmall(t), Sets: []string{"optimizer.max_trials=4", "optimization.gpu_hour_cost={h200_sxm: 3.5}"}})
	if e != nil {
		t.Fatal(e.Message)
	}
	got, _ := drive(t, rc)
	var v recview.View
	if err := json.Unmarshal([]byte(got.View), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Rows) == 0 {
		t.Fatal("no rows")
	}
	for _, r := range v.Rows {
		// 3.5 USD per GPU-hour, the whole run on r.UsedGPUs GPUs.
		if r.CostPerHour == nil || r.CostPerMTok == nil || math.Abs(*r.CostPerHour-3.5*float64(r.UsedGPUs)) > 1e-9 {
			t.Errorf("row %d: cost %v per hour on %d GPUs", r.Rank, r.CostPerHour, r.UsedGPUs)
		}
	}
}
