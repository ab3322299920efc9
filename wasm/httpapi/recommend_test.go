package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/url"
	"os"
	"strings"
	"testing"

	"aisimulate/simcore"
	"aisimulate/simcore/recommend"
)

// smallRecommendation is examples/recommend-small.yaml.
func smallRecommendation(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../../examples/recommend-small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// localRecommend is what simcore.Recommend (the CLI's core) gives for the same inputs.
func localRecommend(t *testing.T, yaml []byte, sets []string) *recommend.Result {
	t.Helper()
	zero := 0.0
	res, err := simcore.Recommend(simcore.RecommendInput{ConfigName: recommendName, ConfigYAML: yaml, Sets: sets,
		ModuleVersion: simcore.Version, FixedWallTimeMs: &zero})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func recommendTarget(query string, sets ...string) string {
	q := url.Values{}
	for _, s := range sets {
		q.Add("set", s)
	}
	if query != "" {
		q.Set("outputs", query)
	}
	return "/v1/recommend?" + q.Encode()
}

// The worker's recommendation.json is simcore.Recommend's for the same inputs, byte for byte.
func TestRecommendEqualsSimcore(t *testing.T) {
	yaml := smallRecommendation(t)
	w := serve(t, &Server{}, "POST", recommendTarget(""), "application/yaml", yaml)
	want := localRecommend(t, yaml, nil)
	if w.Code != 200 || w.Header().Get("Content-Type") != "application/json" || !bytes.Equal(w.Body.Bytes(), want.JSON) {
		t.Fatalf("%d %.300s\nwant %.300s", w.Code, w.Body, want.JSON)
	}
	// The screened example proposes distinct configurations only: 24 trials, 24 candidates.
	if want.Feasible == 0 || !strings.Contains(w.Body.String(), `"evaluated": 24`) || !strings.Contains(w.Body.String(), `"cache_hits": 0`) {
		t.Fatalf("the example's 24 trials should evaluate 24 candidates, some feasible: %.400s", w.Body)
	}
}

// outputs=all: every file the CLI writes, named as the CLI names them, with --set applied.
func TestRecommendAllOutputs(t *testing.T) {
	yaml := smallRecommendation(t)
	sets := []string{"optimizer.max_trials=6", "optimizer.seed=3"}
	w := serve(t, &Server{}, "POST", recommendTarget("all", sets...), "application/yaml", yaml)
	if w.Code != 200 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	want := localRecommend(t, yaml, sets)
	wantParts := []struct {
		name string
		data []byte
	}{{"recommendation.json", want.JSON}, {"recommendation.csv", want.CSV}}
	for _, f := range want.Configs {
		wantParts = append(wantParts, struct {
			name string
			data []byte
		}{f.Name, f.Data})
	}
	if len(want.Configs) == 0 || want.Configs[0].Name != "recommendations/0001.yaml" {
		t.Fatalf("expected numbered configurations, got %d", len(want.Configs))
	}
	mt, params, _ := mime.ParseMediaType(w.Header().Get("Content-Type"))
	if mt != "multipart/mixed" {
		t.Fatalf("content type %q", mt)
	}
	mr := multipart.NewReader(w.Body, params["boundary"])
	for i := 0; ; i++ {
		p, err := mr.NextPart()
		if err == io.EOF {
			if i != len(wantParts) {
				t.Fatalf("%d parts, want %d", i, len(wantParts))
			}
			break
		}
		if err != nil || i >= len(wantParts) {
			t.Fatalf("part %d: %v", i, err)
		}
		data, _ := io.ReadAll(p)
		// The file name keeps the folder (Part.FileName strips it, so read the header).
		_, disp, _ := mime.ParseMediaType(p.Header.Get("Content-Disposition"))
		if disp["filename"] != wantParts[i].name || disp["name"] != wantParts[i].name || !bytes.Equal(data, wantParts[i].data) {
			t.Errorf("part %d %v (%d bytes), want %q (%d bytes)", i, disp, len(data), wantParts[i].name, len(wantParts[i].data))
		}
	}
}

// Nothing feasible is the CLI's exit 1 but still a result: 200 with the counts.
func TestRecommendNothingFeasibleIs200(t *testing.T) {
	yaml := smallRecommendation(t)
	sets := []string{"optimizer.max_trials=4", "optimization.strict_sla=true", "evaluation.sla.ttft_ms=0.001"}
	w := serve(t, &Server{}, "POST", recommendTarget("", sets...), "application/yaml", yaml)
	want := localRecommend(t, yaml, sets)
	if w.Code != 200 || want.Feasible != 0 || !bytes.Equal(w.Body.Bytes(), want.JSON) || !strings.Contains(w.Body.String(), `"feasible": 0`) {
		t.Fatalf("%d %.300s", w.Code, w.Body)
	}
}

// The work of the whole recommendation is bounded: the screen's points and every trial's
// search steps plus every candidate's charged steps, summed. A limit at the sum (in whole
// progress reports) gives simcore.Recommend's result; one progress chunk less is 413 "work" advising fewer trials or
// the CLI, and a limit the trials alone pass is refused before anything runs.
func TestRecommendWorkBudget(t *testing.T) {
	yaml := smallRecommendation(t)
	sets := []string{"optimizer.max_trials=8"}
	// The sum, measured with a meter that cannot run out.
	meter := newWorkMeter(1<<60, nil, (&Server{}).evaluatorLimits)
	zero := 0.0
	if _, err := simcore.Recommend(simcore.RecommendInput{ConfigName: recommendName, ConfigYAML: yaml, Sets: sets, FixedWallTimeMs: &zero,
		Evaluate: meter.evaluate, Admit: meter.admit}); err != nil {
		t.Fatal(err)
	}
	screen := int64(meter.screenPoints) * ScreenStepsPerPoint
	if meter.evaluated < 2 || meter.trials != 8 || (meter.used-screen)%simcore.ProgressSteps != 0 ||
		meter.used < screen+8*SearchStepsPerTrial+int64(meter.evaluated)*simcore.ProgressSteps {
		t.Fatalf("charged %d steps for %d screened points, 8 trials and %d evaluations", meter.used, meter.screenPoints, meter.evaluated)
	}
	reports := int((meter.used + simcore.ProgressSteps - 1) / simcore.ProgressSteps)
	w := serve(t, &Server{MaxProgress: reports}, "POST", recommendTarget("", sets...), "application/yaml", yaml)
	if w.Code != 200 || !bytes.Equal(w.Body.Bytes(), localRecommend(t, yaml, sets).JSON) {
		t.Fatalf("at the sum: %d %.300s", w.Code, w.Body)
	}
	w = serve(t, &Server{MaxProgress: reports - 1}, "POST", recommendTarget("", sets...), "application/yaml", yaml)
	e := errBody(t, w)
	if w.Code != 413 || e.Limit != "work" || e.Path != "optimizer.max_trials" || strings.Contains(e.Error, " 0 candidates were evaluated") ||
		!strings.Contains(e.Error, "max_trials") || !strings.Contains(e.Error, "aisimulate recommend") {
		t.Fatalf("below the sum: %d %+v", w.Code, e)
	}
	w = serve(t, &Server{MaxProgress: 8*SearchStepsPerTrial/simcore.ProgressSteps - 1}, "POST", recommendTarget("", sets...), "application/yaml", yaml)
	if e := errBody(t, w); w.Code != 413 || e.Limit != "work" || !strings.Contains(e.Error, " 0 candidates were evaluated") {
		t.Fatalf("trials alone: %d %+v", w.Code, e)
	}
	// The default limit runs the default 320 trials of the example.
	if w := serve(t, &Server{}, "POST", recommendTarget("", "optimizer.max_trials=320"), "application/yaml", yaml); w.Code != 200 {
		t.Fatalf("320 trials: %d %.300s", w.Code, w.Body)
	}
}

// The screened optimiser's screen is charged before it runs: ScreenStepsPerPoint for each of
// the space's points (recommendation.json's provenance.screen.points). A limit the trials
// pass but not the trials and the screen is 413 "work" at optimizer.algorithm, naming the
// points; the bayesian search the message suggests (no screen) then runs.
func TestRecommendMetersTheScreen(t *testing.T) {
	yaml := smallRecommendation(t)
	sets := []string{"optimizer.max_trials=8"}
	var doc struct {
		Provenance struct {
			Algorithm string `json:"algorithm"`
			Screen    struct {
				Points int `json:"points"`
			} `json:"screen"`
		} `json:"provenance"`
	}
	if err := json.Unmarshal(localRecommend(t, yaml, sets).JSON, &doc); err != nil || doc.Provenance.Algorithm != "screened" || doc.Provenance.Screen.Points < 10 {
		t.Fatalf("the example is not screened: %+v %v", doc.Provenance, err)
	}
	points := doc.Provenance.Screen.Points
	meter := newWorkMeter(1<<60, nil, nil)
	if _, err := simcore.NewRecommender(simcore.RecommendInput{ConfigName: recommendName, ConfigYAML: yaml, Sets: sets, Admit: meter.admit}); err != nil {
		t.Fatal(err)
	}
	if meter.screenPoints != points || meter.used != int64(points)*ScreenStepsPerPoint+8*SearchStepsPerTrial {
		t.Fatalf("admitted %d points for %d steps, want %d points", meter.screenPoints, meter.used, points)
	}
	// Room for the trials and less than the screen.
	limit := (8*SearchStepsPerTrial + int64(points)*ScreenStepsPerPoint - 1) / simcore.ProgressSteps
	w := serve(t, &Server{MaxProgress: int(limit)}, "POST", recommendTarget("", sets...), "application/yaml", yaml)
	e := errBody(t, w)
	if w.Code != 413 || e.Limit != "work" || e.Path != "optimizer.algorithm" || !strings.Contains(e.Error, fmt.Sprintf("the screen of the space's %d points", points)) ||
		!strings.Contains(e.Error, "bayesian") || !strings.Contains(e.Error, "aisimulate recommend") {
		t.Fatalf("%d %+v", w.Code, e)
	}
	// Without the screen the trials fit, and the candidates are charged as they run.
	bayes := append(sets, "optimizer.algorithm=bayesian")
	meter = newWorkMeter(1<<60, nil, (&Server{}).evaluatorLimits)
	zero := 0.0
	if _, err := simcore.Recommend(simcore.RecommendInput{ConfigName: recommendName, ConfigYAML: yaml, Sets: bayes, FixedWallTimeMs: &zero,
		Evaluate: meter.evaluate, Admit: meter.admit}); err != nil || meter.screenPoints != 0 {
		t.Fatalf("bayesian: %v, %d points screened", err, meter.screenPoints)
	}
	w = serve(t, &Server{MaxProgress: int(meter.used / simcore.ProgressSteps)}, "POST", recommendTarget("", bayes...), "application/yaml", yaml)
	if w.Code != 200 || !bytes.Equal(w.Body.Bytes(), localRecommend(t, yaml, bayes).JSON) {
		t.Fatalf("bayesian at its sum: %d %.300s", w.Code, w.Body)
	}
}

// A candidate over the worker's memory budget is 413 "memory" at its field.
func TestRecommendMemoryLimit(t *testing.T) {
	yaml := smallRecommendation(t)
	// 150,000 clients in a closed loop: about 370 MiB of in-flight state.
	w := serve(t, &Server{}, "POST", recommendTarget("", "traffic.load.concurrency=150000", "traffic.stop.requests=150000"), "application/yaml", yaml)
	e := errBody(t, w)
	if w.Code != 413 || e.Limit != "memory" || e.Path != "traffic.load.concurrency" ||
		!strings.Contains(e.Error, "candidate 1: ") || !strings.Contains(e.Error, "aisimulate recommend") {
		t.Fatalf("%d %+v", w.Code, e)
	}
}

// Bad configurations are 400 at their field with the CLI's message.
func TestRecommendBadConfig(t *testing.T) {
	yaml := smallRecommendation(t)
	for _, c := range []struct{ set, path, msg string }{
		{"engine.model={choices: [a, b]}", "engine.model", "recommendation.yaml: engine.model: "},
		{"optimizer.max_trials=0", "optimizer.max_trials", "recommendation.yaml: optimizer.max_trials: "},
	} {
		w := serve(t, &Server{}, "POST", recommendTarget("", c.set), "application/yaml", yaml)
		e := errBody(t, w)
		if w.Code != 400 || e.Path != c.path || !strings.HasPrefix(e.Error, c.msg) {
			t.Errorf("%s: %d %+v", c.set, w.Code, e)
		}
	}
	for _, c := range []struct{ target, body, msg string }{
		{"/v1/recommend", "", "empty configuration"},
		{"/v1/recommend?outputs=some", string(yaml), "outputs="},
		{"/v1/recommend", strings.Repeat("[", 200), "nests collections"},
	} {
		w := serve(t, &Server{}, "POST", c.target, "application/yaml", []byte(c.body))
		if e := errBody(t, w); w.Code != 400 || !strings.Contains(e.Error, c.msg) {
			t.Errorf("%s %.20q: %d %+v", c.target, c.body, w.Code, e)
		}
	}
	big := append([]byte("# "+strings.Repeat("x", MaxConfigBytes)+"\n"), yaml...)
	if w := serve(t, &Server{}, "POST", "/v1/recommend", "application/yaml", big); w.Code != 413 || errBody(t, w).Limit != "body" {
		t.Errorf("configuration over 1 MiB: %d %s", w.Code, w.Body)
	}
	if w := serve(t, &Server{}, "GET", "/v1/recommend", "", nil); w.Code != 405 {
		t.Errorf("GET: %d", w.Code)
	}
}
