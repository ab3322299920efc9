package httpapi

import (
	"io"
	"mime"
	"mime/multipart"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"aisimulate/simcore"
	"aisimulate/simcore/deploy"
)

// mixedParts reads a multipart/mixed answer: the part names in order and their bytes.
func mixedParts(t *testing.T, w *httptest.ResponseRecorder) (order []string, got map[string]string) {
	t.Helper()
	mt, params, _ := mime.ParseMediaType(w.Header().Get("Content-Type"))
	if w.Code != 200 || mt != "multipart/mixed" {
		t.Fatalf("%d %s %.300s", w.Code, mt, w.Body)
	}
	got = map[string]string{}
	mr := multipart.NewReader(w.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return order, got
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(p)
		_, dp, _ := mime.ParseMediaType(p.Header.Get("Content-Disposition"))
		if dp["name"] != dp["filename"] {
			t.Errorf("part name %q, filename %q", dp["name"], dp["filename"])
		}
		order = append(order, dp["name"])
		got[dp["name"]] = string(b)
	}
}

// POST /v1/recommend?artifacts=1 with a calibration profile is `recommend --calibration
// --artifacts`: recommendation.json then deploy/0001/ to deploy/0003/, the bytes the core's
// generator writes from the same (calibrated) recommendation.json; artifacts_top=N takes the
// first N instead, and with outputs=all the CSV and the numbered configurations come between.
func TestRecommendArtifactsParts(t *testing.T) {
	prof, _ := exampleProfile(t)
	yaml := smallRecommendation(t)
	body, ctype := calibrationForm(t, "config", string(yaml), prof)
	zero := 0.0
	want, err := simcore.Recommend(simcore.RecommendInput{ConfigName: recommendName, ConfigYAML: yaml, ModuleVersion: simcore.Version,
		FixedWallTimeMs: &zero, Calibrations: []simcore.NamedFile{prof}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(want.JSON), `"calibrated_candidates"`) {
		t.Fatal("the example recommendation is not calibrated")
	}
	for _, c := range []struct {
		query string
		top   int
		all   bool
	}{{"artifacts=1", deploy.DefaultTop, false}, {"artifacts=1&artifacts_top=1", 1, false}, {"outputs=all&artifacts=true&artifacts_top=2", 2, true}} {
		files, err := simcore.RecommendationArtifacts(want.JSON, c.top)
		if err != nil {
			t.Fatal(err)
		}
		w := serve(t, &Server{}, "POST", "/v1/recommend?"+c.query, ctype, body)
		order, got := mixedParts(t, w)
		wantOrder := []string{"recommendation.json"}
		if c.all {
			wantOrder = append(wantOrder, "recommendation.csv")
			for _, f := range want.Configs {
				wantOrder = append(wantOrder, f.Name)
			}
		}
		for _, f := range files {
			wantOrder = append(wantOrder, f.Name)
			if got[f.Name] != string(f.Data) {
				t.Errorf("%s: part %s differs from the generator's bytes", c.query, f.Name)
			}
		}
		if strings.Join(order, ",") != strings.Join(wantOrder, ",") {
			t.Errorf("%s: parts\n%v\nwant\n%v", c.query, order, wantOrder)
		}
		if got["recommendation.json"] != string(want.JSON) {
			t.Errorf("%s: recommendation.json differs from recommend --calibration's", c.query)
		}
		last := files[len(files)-1].Name
		if wantDir := "deploy/" + []string{"", "0001", "0002", "0003"}[c.top] + "/"; !strings.HasPrefix(last, wantDir) {
			t.Errorf("%s: last deployment file %s, want one under %s", c.query, last, wantDir)
		}
	}
}

// Nothing feasible with artifacts=1 is still the multipart shape the call asked for:
// recommendation.json alone, no deployment (the CLI writes no deploy/ either).
func TestRecommendArtifactsNothingFeasible(t *testing.T) {
	yaml := smallRecommendation(t)
	sets := []string{"optimizer.max_trials=4", "optimization.strict_sla=true", "evaluation.sla.ttft_ms=0.001"}
	w := serve(t, &Server{}, "POST", recommendTarget("", sets...)+"&artifacts=1", "application/yaml", yaml)
	order, got := mixedParts(t, w)
	if strings.Join(order, ",") != "recommendation.json" || got["recommendation.json"] != string(localRecommend(t, yaml, sets).JSON) {
		t.Errorf("parts %v", order)
	}
}

// Hostile or meaningless artifact parameters are 400 before anything runs, naming the
// parameter and the fix.
func TestRecommendArtifactsBadParameters(t *testing.T) {
	yaml := smallRecommendation(t)
	for q, want := range map[string]string{
		"artifacts=1&artifacts_top=0":                         `artifacts_top="0": must be a whole number from 1 to 9999`,
		"artifacts=1&artifacts_top=10000":                     `artifacts_top="10000": must be a whole number from 1 to 9999`,
		"artifacts=1&artifacts_top=two":                       `artifacts_top="two": must be a whole number`,
		"artifacts=1&artifacts_top=-1":                        `artifacts_top="-1": must be a whole number`,
		"artifacts_top=2":                                     "artifacts_top without artifacts=1 would do nothing",
		"artifacts=1&artifacts_top=" + url.QueryEscape("1e3"): `artifacts_top="1e3"`,
	} {
		w := serve(t, &Server{MaxProgress: 1}, "POST", "/v1/recommend?"+q, "application/yaml", yaml)
		if e := errBody(t, w); w.Code != 400 || !strings.HasPrefix(e.Error, want) {
			t.Errorf("%s: %d %+v", q, w.Code, e)
		}
	}
}

// FuzzRecommendArtifacts posts arbitrary sweeps, multipart bodies (profiles among them) and
// queries to /v1/recommend: every answer is 200 or a JSON error with a 4xx status, never a
// crash; a 200 that asked for several files is multipart/mixed whose deployments lie under
// deploy/NNNN/ with NNNN at most the artifacts_top asked for.
func FuzzRecommendArtifacts(f *testing.F) {
	tiny := "traffic: {source: {type: synthetic, input_tokens: 64, output_tokens: 4}, load: {type: concurrency, concurrency: 1}, stop: {requests: 2}}\n" +
		"engine: {mode: aggregated, model: meta-llama/Meta-Llama-3.1-8B-Instruct, hardware: h200_sxm, backend: {choices: [vllm, sglang]}, workers: {aggregated: {}}}\n" +
		"optimization: {target: throughput}\noptimizer: {max_trials: 2}\n"
	f.Add([]byte(tiny), "", "artifacts=1")
	f.Add([]byte(tiny), "", "artifacts=1&artifacts_top=1&outputs=all")
	f.Add([]byte(tiny), "", "artifacts=1&artifacts_top=99999")
	f.Add([]byte("--b\r\nContent-Disposition: form-data; name=\"config\"\r\n\r\n"+tiny+"\r\n--b\r\nContent-Disposition: form-data; name=\"calibration\"; filename=\"../p.json\"\r\n\r\n{\"schema_version\": 1, \"entries\": []}\r\n--b--\r\n"),
		"multipart/form-data; boundary=b", "artifacts=1&strict_calibration=1")
	f.Fuzz(func(t *testing.T, body []byte, ctype, query string) {
		q, _ := url.ParseQuery(query)
		w := serve(t, &Server{MaxProgress: 64}, "POST", "/v1/recommend?"+q.Encode(), ctype, body)
		if w.Code != 200 {
			if e := errBody(t, w); w.Code >= 500 || e.Error == "" {
				t.Fatalf("status %d: %+v", w.Code, e)
			}
			return
		}
		if !truthy(q.Get("artifacts")) && q.Get("outputs") != "all" {
			return
		}
		top, _ := artifactsTop(q.Get("artifacts_top"))
		order, _ := mixedParts(t, w)
		for _, name := range order[1:] {
			n := 0
			if rest, ok := strings.CutPrefix(name, "deploy/"); ok {
				if len(rest) < 5 || rest[4] != '/' {
					t.Fatalf("deployment part %q", name)
				}
				for _, c := range rest[:4] {
					n = n*10 + int(c-'0')
				}
				if n < 1 || n > top || strings.Contains(rest, "..") {
					t.Fatalf("deployment part %q, artifacts_top %d", name, top)
				}
			} else if name != "recommendation.csv" && !strings.HasPrefix(name, "recommendations/") {
				t.Fatalf("part %q", name)
			}
		}
	})
}

// A bad profile on /v1/recommend is 400 before the search, naming the file and the field as
// `recommend --calibration` does (it was a 500).
func TestRecommendBadProfileIs400(t *testing.T) {
	yaml := smallRecommendation(t)
	body, ctype := calibrationForm(t, "config", string(yaml), simcore.NamedFile{Name: "bad.json", Data: []byte(`{"schema_version": 1, "entries": []}`)})
	w := serve(t, &Server{}, "POST", "/v1/recommend?artifacts=1", ctype, body)
	if e := errBody(t, w); w.Code != 400 || e.Path != "entries" || !strings.HasPrefix(e.Error, "bad.json: entries: ") {
		t.Errorf("%d %+v", w.Code, e)
	}
}
