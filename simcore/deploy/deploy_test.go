package deploy

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"aisimulate/simcore/spec"

	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/golden")

// testCase is one deployment the tests generate: a configuration of testdata/configs with
// --set assignments.
type testCase struct {
	name, file string
	sets       []string
}

// cases cover every row of the three flag tables and of the frontend table at least once:
// each backend aggregated and disaggregated, attention data and expert parallelism, fixed and
// memory-sized KV capacity, prefix caching on and off, each KV dtype, a context limit, both
// routers and the planner with each kind of target.
var cases = []testCase{
	{"vllm-agg-planner", "vllm-agg-planner.yaml", nil},
	{"vllm-moe-dp-fixed", "vllm-agg-planner.yaml", []string{
		"engine.model=Qwen/Qwen3-30B-A3B",
		"engine.workers.aggregated.parallelism={replicas: 1, tensor: 2, attention_data: 2, moe_tensor: 1, moe_expert: 4}",
		"engine.workers.aggregated.kv_cache={block_size: 32, prefix_caching: false, capacity: {type: fixed, blocks: 4000}}",
		"engine.kvcache_quant_mode=fp8", "router={policy: round_robin}", "planner={policy: disabled}"}},
	{"vllm-disagg-sla-planner", "sglang-disagg.yaml", []string{"engine.backend=vllm",
		"engine.workers.decode.kv_cache={prefix_caching: true}", "engine.kvcache_quant_mode=bf16",
		"planner={policy: enabled, target: sla, enable_throughput_scaling: true, enable_load_scaling: true, throughput_adjustment_interval_seconds: 60, load_adjustment_interval_seconds: 5, decode_min_workers: 1}",
		"router={policy: kv_router, prefill_load_model: {type: aic}, prefill_load_scale: 2}"}},
	{"sglang-disagg", "sglang-disagg.yaml", nil},
	{"sglang-moe-dp", "vllm-agg-planner.yaml", []string{"engine.backend=sglang", "engine.model=Qwen/Qwen3-30B-A3B",
		"engine.workers.aggregated.parallelism={replicas: 2, tensor: 1, attention_data: 4, moe_tensor: 1, moe_expert: 4}",
		"engine.workers.aggregated.scheduler={max_sequences: 128, prefill_decode_interval: 2, recv_interval: 30}",
		"engine.workers.aggregated.kv_cache={capacity: {type: fixed, blocks: 100000}}", "planner={policy: disabled}"}},
	{"trtllm-moe-multinode", "trtllm-moe-multinode.yaml", nil},
	{"trtllm-agg-int8", "vllm-agg-planner.yaml", []string{"engine.backend=trtllm", "engine.kvcache_quant_mode=int8",
		"engine.context_length=8192", "engine.workers.aggregated.parallelism={replicas: 3, tensor: 4, pipeline: 2}",
		"engine.workers.aggregated.kv_cache={prefix_caching: false, capacity: {type: fixed, blocks: 2048}}",
		"planner={policy: enabled, target: latency, enable_throughput_scaling: false, enable_load_scaling: true, min_num_gpus: 8, max_num_gpus: 24}"}},
}

// testSummary is the prediction the golden READMEs show; testIntervals its intervals object.
var testSummary = map[string]any{
	"mean_ttft_ms": 123.456, "p90_ttft_ms": 180.5, "mean_itl_ms": 8.25, "mean_tpot_ms": 8.25,
	"mean_e2e_latency_ms": 1210.75, "p90_e2e_latency_ms": 1400.0, "output_throughput_tok_s": 1500.5,
	"request_throughput_rps": 11.7, "completed_requests": 50, "gpu_hours": 0.00421,
}
var testIntervals = map[string]any{"group": "vllm/agg/c1-32", "source": "default",
	"mean_ttft_ms":        map[string]any{"n": 631, "p10": 107.75, "p90": 359.94},
	"mean_itl_ms":         map[string]any{"n": 631, "p10": 4.39, "p90": 11.03},
	"mean_e2e_latency_ms": map[string]any{"n": 631, "p10": 779.3, "p90": 1718.65}}

// generate loads a case's configuration and writes its deployment.
func generate(t *testing.T, c testCase) []File {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("testdata", "configs", c.file))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := spec.LoadConfig(text, c.sets)
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	in := Input{Number: 1, Config: cfg, Source: "testdata/configs/" + c.file, Summary: testSummary}
	if c.name == "vllm-agg-planner" {
		in.Intervals = testIntervals
	}
	files, err := Generate(in)
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	return files
}

func file(files []File, suffix string) []byte {
	for _, f := range files {
		if strings.HasSuffix(f.Name, suffix) {
			return f.Data
		}
	}
	return nil
}

// TestGolden pins every generated file of every case (go test -update rewrites them).
func TestGolden(t *testing.T) {
	for _, c := range cases {
		files := generate(t, c)
		dir := filepath.Join("testdata", "golden", c.name)
		if *update {
			os.RemoveAll(dir)
			for _, f := range files {
				p := filepath.Join(dir, filepath.FromSlash(f.Name))
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, f.Data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			continue
		}
		var want []string
		filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				rel, _ := filepath.Rel(dir, p)
				want = append(want, filepath.ToSlash(rel))
			}
			return nil
		})
		var got []string
		for _, f := range files {
			got = append(got, f.Name)
			b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Name)))
			if err != nil || !bytes.Equal(b, f.Data) {
				t.Errorf("%s: %s differs from its golden file (go test ./simcore/deploy -update)", c.name, f.Name)
			}
		}
		sort.Strings(want)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s: files %v, golden %v", c.name, got, want)
		}
	}
}

// schema is the subset of OpenAPI v3 testdata/dgd_schema.yaml uses.
type schema struct {
	Type                 string             `json:"type"`
	Enum                 []any              `json:"enum"`
	Required             []string           `json:"required"`
	Properties           map[string]*schema `json:"properties"`
	AdditionalProperties *schema            `json:"additionalProperties"`
	Items                *schema            `json:"items"`
	Minimum              *float64           `json:"minimum"`
	Maximum              *float64           `json:"maximum"`
	Pattern              string             `json:"pattern"`
}

// check validates v against s, reporting every violation with its path.
func (s *schema) check(path string, v any, errs *[]string) {
	bad := func(format string, a ...any) { *errs = append(*errs, path+": "+fmt.Sprintf(format, a...)) }
	switch s.Type {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			bad("%T is not an object", v)
			return
		}
		for _, r := range s.Required {
			if _, ok := m[r]; !ok {
				bad("required %s is missing", r)
			}
		}
		for k, x := range m {
			switch {
			case s.Properties[k] != nil:
				s.Properties[k].check(path+"."+k, x, errs)
			case s.AdditionalProperties != nil:
				s.AdditionalProperties.check(path+"."+k, x, errs)
			default:
				bad("%s is not a property of the schema", k)
			}
		}
	case "array":
		a, ok := v.([]any)
		if !ok {
			bad("%T is not an array", v)
			return
		}
		for i, x := range a {
			s.Items.check(fmt.Sprintf("%s[%d]", path, i), x, errs)
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			bad("%v (%T) is not a string", v, v)
			return
		}
		if s.Pattern != "" && !regexp.MustCompile(s.Pattern).MatchString(str) {
			bad("%q does not match %s", str, s.Pattern)
		}
	case "integer":
		f, ok := v.(float64)
		if !ok || f != float64(int64(f)) {
			bad("%v (%T) is not an integer", v, v)
			return
		}
		if s.Minimum != nil && f < *s.Minimum || s.Maximum != nil && f > *s.Maximum {
			bad("%v is outside its bounds", f)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			bad("%v (%T) is not a boolean", v, v)
		}
	}
	if len(s.Enum) > 0 {
		found := false
		for _, e := range s.Enum {
			found = found || e == v
		}
		if !found {
			bad("%v is not one of %v", v, s.Enum)
		}
	}
}

// loadYAML reads a testdata YAML file into out.
func loadYAML(t *testing.T, name string, out any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// documents splits a manifest into its YAML documents, decoded.
func documents(t *testing.T, manifest []byte) []map[string]any {
	t.Helper()
	var docs []map[string]any
	for _, part := range strings.Split(string(manifest), "\n---\n")[1:] {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(part), &m); err != nil {
			t.Fatalf("manifest document does not parse: %v\n%s", err, part)
		}
		docs = append(docs, m)
	}
	return docs
}

// TestManifestMatchesTheCRD checks every manifest against the CRD facts of
// testdata/dgd_schema.yaml: one DynamoGraphDeployment (after a ConfigMap for TensorRT-LLM),
// its GPU requests as the roles need them, and the services per role.
func TestManifestMatchesTheCRD(t *testing.T) {
	var schemas map[string]*schema
	loadYAML(t, "dgd_schema.yaml", &schemas)
	for _, c := range cases {
		files := generate(t, c)
		docs := documents(t, file(files, ManifestName))
		var dgd map[string]any
		for _, doc := range docs {
			var errs []string
			switch doc["kind"] {
			case "ConfigMap":
				schemas["configmap"].check(c.name, doc, &errs)
			default:
				dgd = doc
				schemas["dynamographdeployment"].check(c.name, doc, &errs)
			}
			for _, e := range errs {
				t.Error(e)
			}
		}
		if dgd == nil || docs[len(docs)-1]["kind"] != "DynamoGraphDeployment" {
			t.Fatalf("%s: the manifest does not end with a DynamoGraphDeployment", c.name)
		}
		// The GPUs the services request add up to the deployment's.
		cfg, _ := spec.LoadConfig(mustRead(t, c.file), c.sets)
		d := newDeployment(Input{Number: 1, Config: cfg})
		services := dgd["spec"].(map[string]any)["services"].(map[string]any)
		total := 0
		for _, s := range services {
			svc := s.(map[string]any)
			if svc["componentType"] != "worker" {
				continue
			}
			var gpu int
			fmt.Sscan(svc["resources"].(map[string]any)["limits"].(map[string]any)["gpu"].(string), &gpu)
			nodes := 1.0
			if m, ok := svc["multinode"].(map[string]any); ok {
				nodes = m["nodeCount"].(float64)
			}
			total += int(svc["replicas"].(float64)) * gpu * int(nodes)
		}
		if total != d.totalGPUs() {
			t.Errorf("%s: the services request %d GPUs, the deployment has %d", c.name, total, d.totalGPUs())
		}
		if len(services) != len(d.roles)+1+btoi(cfg.Planner.Policy == spec.PlannerEnabled) {
			t.Errorf("%s: services %v", c.name, services)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "configs", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// flagList is testdata/backend_flags.yaml.
type flagList struct {
	Commands map[string]struct {
		Documented string              `json:"documented"`
		Flags      []string            `json:"flags"`
		Includes   []string            `json:"includes"`
		Values     map[string][]string `json:"values"`
	} `json:"commands"`
	TRTLLMOptions struct {
		Keys   []string            `json:"keys"`
		Values map[string][]string `json:"values"`
	} `json:"trtllm_options"`
	PlannerConfig struct {
		Keys   []string            `json:"keys"`
		Values map[string][]string `json:"values"`
	} `json:"planner_config"`
}

// allowed are the flags of a command with its includes, and the documented values.
func (l flagList) allowed(cmd string) (map[string]bool, map[string][]string) {
	flags, values := map[string]bool{}, map[string][]string{}
	c, ok := l.Commands[cmd]
	if !ok {
		return nil, nil
	}
	for _, f := range c.Flags {
		flags[f] = true
	}
	for k, v := range c.Values {
		values[k] = v
	}
	for _, inc := range c.Includes {
		f, v := l.allowed(inc)
		for k := range f {
			flags[k] = true
		}
		for k, x := range v {
			values[k] = x
		}
	}
	return flags, values
}

// checkCommand reports every option of args not documented for cmd, and every value
// outside the documented ones.
func (l flagList) checkCommand(t *testing.T, where, cmd string, args []string) {
	t.Helper()
	flags, values := l.allowed(cmd)
	if flags == nil {
		t.Errorf("%s: command %q is not in backend_flags.yaml", where, cmd)
		return
	}
	for i, a := range args {
		if !strings.HasPrefix(a, "--") {
			continue
		}
		if !flags[a] {
			t.Errorf("%s: %s writes %s, which backend_flags.yaml does not document", where, cmd, a)
		}
		if vs, ok := values[a]; ok {
			if i+1 >= len(args) || !contains(vs, args[i+1]) {
				t.Errorf("%s: %s %s has a value outside %v", where, cmd, a, vs)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestEveryFlagIsDocumented checks every option every command of every case writes — the
// manifest's containers, the launch scripts' servers, TensorRT-LLM's options YAML and the
// planner's configuration — against testdata/backend_flags.yaml, and every flag the tables
// may write even where no case writes it.
func TestEveryFlagIsDocumented(t *testing.T) {
	var l flagList
	loadYAML(t, "backend_flags.yaml", &l)
	for cmd, c := range l.Commands {
		if c.Documented == "" {
			t.Errorf("backend_flags.yaml: %s does not say where its flags are documented", cmd)
		}
	}
	tables := map[string][]engineFlag{"vllm serve": vllmFlags, "python -m sglang.launch_server": sglangFlags, "python3 -m dynamo.frontend": frontendFlags}
	for cmd, table := range tables {
		flags, _ := l.allowed(cmd)
		for _, row := range table {
			for _, f := range row.flags {
				if !flags[f] {
					t.Errorf("the %s table row of %s may write %s, which backend_flags.yaml does not document", cmd, row.field, f)
				}
			}
		}
	}
	for _, k := range trtllmKeys {
		if !contains(l.TRTLLMOptions.Keys, k.key) {
			t.Errorf("TensorRT-LLM option %s (from %s) is not in backend_flags.yaml", k.key, k.field)
		}
	}
	seen := map[string]bool{}
	for _, c := range cases {
		files := generate(t, c)
		dgd := documents(t, file(files, ManifestName))
		for _, doc := range dgd {
			if doc["kind"] != dgdKind {
				continue
			}
			for name, s := range doc["spec"].(map[string]any)["services"].(map[string]any) {
				main := s.(map[string]any)["extraPodSpec"].(map[string]any)["mainContainer"].(map[string]any)
				var cmd, args []string
				for _, x := range main["command"].([]any) {
					cmd = append(cmd, x.(string))
				}
				for _, x := range main["args"].([]any) {
					args = append(args, x.(string))
				}
				l.checkCommand(t, c.name+" "+name, strings.Join(cmd, " "), args)
				for _, a := range args {
					seen[a] = true
				}
				if cmd[2] == "dynamo.planner" {
					checkPlannerConfig(t, c.name, l, args[1])
				}
			}
		}
		cfg, _ := spec.LoadConfig(mustRead(t, c.file), c.sets)
		d := newDeployment(Input{Number: 1, Config: cfg})
		for _, r := range d.roles {
			cmd, opts := d.standaloneCommand(r)
			words := map[string]int{"vllm": 2, "python": 3, "trtllm-serve": 1}[cmd[0]]
			name := strings.Join(cmd[:words], " ")
			l.checkCommand(t, c.name+" launch/"+r.name+".sh", name, append(cmd, opts...))
			if d.backend == spec.BackendTRTLLM {
				l.checkCommand(t, c.name+" launch/"+r.name+".sh", name, []string{"--extra_llm_api_options"})
				var opts map[string]any
				if err := yaml.Unmarshal(d.trtllmOptions(r), &opts); err != nil {
					t.Fatal(err)
				}
				for k, v := range flatten("", opts) {
					if !contains(l.TRTLLMOptions.Keys, k) {
						t.Errorf("%s: TensorRT-LLM option %s is not documented", c.name, k)
					}
					if vs, ok := l.TRTLLMOptions.Values[k]; ok && !contains(vs, fmt.Sprint(v)) {
						t.Errorf("%s: TensorRT-LLM option %s: %v is outside %v", c.name, k, v, vs)
					}
					seen[k] = true
				}
			}
		}
	}
	// The cases exercise every row of every table.
	for _, table := range tables {
		for _, row := range table {
			any := false
			for _, f := range row.flags {
				any = any || seen[f]
			}
			if !any {
				t.Errorf("no case writes the %s row (%v)", row.field, row.flags)
			}
		}
	}
	for _, k := range trtllmKeys {
		if !seen[k.key] {
			t.Errorf("no case writes TensorRT-LLM option %s", k.key)
		}
	}
}

// flatten turns nested YAML mappings into dotted keys.
func flatten(prefix string, m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok {
			for k2, v2 := range flatten(prefix+k+".", sub) {
				out[k2] = v2
			}
			continue
		}
		out[prefix+k] = v
	}
	return out
}

// checkPlannerConfig checks the planner's --config JSON against PlannerConfig's keys.
func checkPlannerConfig(t *testing.T, where string, l flagList, text string) {
	var c map[string]any
	if err := json.Unmarshal([]byte(text), &c); err != nil {
		t.Fatalf("%s: planner --config is not JSON: %v", where, err)
	}
	for k, v := range c {
		if !contains(l.PlannerConfig.Keys, k) {
			t.Errorf("%s: planner key %s is not a PlannerConfig field", where, k)
		}
		if vs, ok := l.PlannerConfig.Values[k]; ok && !contains(vs, fmt.Sprint(v)) {
			t.Errorf("%s: planner %s: %v is outside %v", where, k, v, vs)
		}
	}
}

// hostileModels are model ids that must not steer a path, a name or a command.
var hostileModels = []string{
	"../../../../etc/passwd", "/abs/models/llama", "a/../../b", "..", "models/x\nrm -rf ~",
	"$(touch /tmp/pwned)", "it's `quoted`", "deploy/0002", "C:\\models\\llama", "name|with|bars",
}

// TestModelIDsNeverEscapeDeploy: whatever engine.model holds, every file stays in
// deploy/0001/, names are valid Kubernetes names, the manifest parses and hands the id to the
// engine as one argument, and the launch script is one shell command.
func TestModelIDsNeverEscapeDeploy(t *testing.T) {
	for _, id := range hostileModels {
		sets := []string{"engine.model=" + strconvQuoteYAML(id)}
		cfg, err := spec.LoadConfig(mustRead(t, "sglang-disagg.yaml"), sets)
		if err != nil {
			t.Fatalf("%q: %v", id, err)
		}
		if cfg.Engine.Model != id {
			t.Fatalf("model %q loaded as %q", id, cfg.Engine.Model)
		}
		files, err := Generate(Input{Number: 1, Config: cfg, Source: id, Summary: testSummary})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if !Contained(f.Name, "deploy/0001") || !strings.HasPrefix(f.Name, "deploy/0001/") {
				t.Errorf("%q: file %q is outside deploy/0001/", id, f.Name)
			}
		}
		for _, doc := range documents(t, file(files, ManifestName)) {
			if doc["kind"] != dgdKind {
				continue
			}
			name := doc["metadata"].(map[string]any)["name"].(string)
			if !regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`).MatchString(name) {
				t.Errorf("%q: metadata.name %q", id, name)
			}
			svc := doc["spec"].(map[string]any)["services"].(map[string]any)["prefill"].(map[string]any)
			args := svc["extraPodSpec"].(map[string]any)["mainContainer"].(map[string]any)["args"].([]any)
			if args[1] != id {
				t.Errorf("%q: the worker's --model-path is %q", id, args[1])
			}
		}
		if sh, err := exec.LookPath("sh"); err == nil {
			script := strings.Replace(string(file(files, "launch/prefill.sh")), "exec ", "printf '%s\\000' ", 1)
			out, err := exec.Command(sh, "-c", script).Output()
			if err != nil {
				t.Fatalf("%q: launch script: %v", id, err)
			}
			words := strings.Split(string(out), "\x00")
			if len(words) < 6 || words[4] != id {
				t.Errorf("%q: the launch script passes %q", id, words)
			}
		}
		for _, line := range strings.Split(string(file(files, ManifestName)), "\n") {
			if strings.HasPrefix(line, "rm ") || strings.HasPrefix(line, "$(") {
				t.Errorf("%q: the manifest has a line of the model id: %q", id, line)
			}
		}
	}
}

// strconvQuoteYAML writes s as a YAML double-quoted scalar.
func strconvQuoteYAML(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestContained(t *testing.T) {
	for name, want := range map[string]bool{
		"deploy/0001/README.md": true, "deploy/0001/launch/x.sh": true,
		"deploy/0001": false, "deploy/0001/": false, "deploy/0001/../0002/x": false, "/deploy/0001/x": false,
		"deploy/0001/./x": false, "deploy/00012/x": false, "deploy/0001//x": false, "": false,
		"../deploy/0001/x": false,
	} {
		if Contained(name, "deploy/0001") != want {
			t.Errorf("Contained(%q) = %t", name, !want)
		}
	}
}

// TestGenerateRefuses: a number outside 1..9999 or no configuration is an error, not a file.
func TestGenerateRefuses(t *testing.T) {
	cfg, _ := spec.LoadConfig(mustRead(t, "sglang-disagg.yaml"), nil)
	for _, in := range []Input{{Number: 0, Config: cfg}, {Number: MaxNumber + 1, Config: cfg}, {Number: 1}} {
		if files, err := Generate(in); err == nil {
			t.Errorf("%+v: %d files", in.Number, len(files))
		}
	}
}
