package deploy

import (
	"strconv"

	"aisimulate/simcore/spec"

	"go.yaml.in/yaml/v2"
)

// The DynamoGraphDeployment resource this package writes (the CRD of ai-dynamo/dynamo,
// deploy/cloud/operator/config/crd/bases/nvidia.com_dynamographdeployments.yaml; the facts
// the tests check are in testdata/dgd_schema.yaml).
const (
	dgdAPIVersion = "nvidia.com/v1alpha1"
	dgdKind       = "DynamoGraphDeployment"
)

// DynamoVersion is the Dynamo release whose container images the manifest names
// (nvcr.io/nvidia/ai-dynamo/<backend>-runtime and dynamo-planner, as Dynamo's recipes do).
const DynamoVersion = "1.3.1"

// imageRegistry holds Dynamo's published images.
const imageRegistry = "nvcr.io/nvidia/ai-dynamo/"

// runtimeImage is the Dynamo runtime image of each backend.
var runtimeImage = map[string]string{
	spec.BackendVLLM:   "vllm-runtime",
	spec.BackendSGLang: "sglang-runtime",
	spec.BackendTRTLLM: "tensorrtllm-runtime",
}

// Names the manifest gives to what it creates or expects.
const (
	// hfTokenSecret is the Secret holding HF_TOKEN, as in Dynamo's recipes (the README
	// says how to create it).
	hfTokenSecret = "hf-token-secret"
	// containerName is the main container's name (the CRD's Container requires one).
	containerName = "main"
	// frontendPort is the OpenAI-compatible HTTP port of the frontend.
	frontendPort = 8000
	// optionsVolume and optionsMount carry TensorRT-LLM's options YAML into the workers.
	optionsVolume = "engine-options"
	optionsMount  = "/etc/aisimulate"
)

// image is the full image reference of a Dynamo image name.
func image(name string) string { return imageRegistry + name + ":" + DynamoVersion }

// manifest is the deployment's Kubernetes manifest: for TensorRT-LLM a ConfigMap with the
// roles' options YAML first, then the DynamoGraphDeployment.
func (d *deployment) manifest() []byte {
	out := []byte("# " + d.title() + "\n" +
		"# Written by aisimulate from " + strconv.Quote(d.in.Source) + " (docs/artifacts.md).\n" +
		"# Apply with: kubectl apply -n <namespace> -f " + ManifestName + "\n")
	if d.backend == spec.BackendTRTLLM {
		data := yaml.MapSlice{}
		for _, r := range d.roles {
			data = append(data, yaml.MapItem{Key: r.name + ".yaml", Value: string(d.trtllmOptions(r))})
		}
		out = append(out, "---\n"...)
		out = append(out, marshal(yaml.MapSlice{
			{Key: "apiVersion", Value: "v1"},
			{Key: "kind", Value: "ConfigMap"},
			{Key: "metadata", Value: yaml.MapSlice{{Key: "name", Value: d.optionsConfigMap()}}},
			{Key: "data", Value: data},
		})...)
	}
	services := yaml.MapSlice{{Key: "Frontend", Value: d.frontendService()}}
	if d.cfg.Planner.Policy == spec.PlannerEnabled {
		services = append(services, yaml.MapItem{Key: "Planner", Value: d.plannerService()})
	}
	for _, r := range d.roles {
		services = append(services, yaml.MapItem{Key: r.service, Value: d.workerService(r)})
	}
	out = append(out, "---\n"...)
	return append(out, marshal(yaml.MapSlice{
		{Key: "apiVersion", Value: dgdAPIVersion},
		{Key: "kind", Value: dgdKind},
		{Key: "metadata", Value: yaml.MapSlice{{Key: "name", Value: d.name}}},
		{Key: "spec", Value: yaml.MapSlice{
			{Key: "backendFramework", Value: d.backend},
			{Key: "services", Value: services},
		}},
	})...)
}

// optionsConfigMap names the ConfigMap of TensorRT-LLM's options.
func (d *deployment) optionsConfigMap() string { return d.name + "-engine-options" }

// container is a main container running command with args.
func container(img string, command, args []string) yaml.MapSlice {
	return yaml.MapSlice{
		{Key: "name", Value: containerName},
		{Key: "image", Value: img},
		{Key: "command", Value: command},
		{Key: "args", Value: args},
	}
}

// frontendService is the Dynamo frontend: the HTTP endpoint and the router.
func (d *deployment) frontendService() yaml.MapSlice {
	args := []string{"--http-port", strconv.Itoa(frontendPort)}
	for _, f := range frontendFlags {
		args = append(args, f.args(d, role{})...)
	}
	return yaml.MapSlice{
		{Key: "componentType", Value: "frontend"},
		{Key: "replicas", Value: 1},
		{Key: "extraPodSpec", Value: yaml.MapSlice{{Key: "mainContainer",
			Value: container(image(runtimeImage[d.backend]), []string{"python3", "-m", "dynamo.frontend"}, args)}}},
	}
}

// plannerService is the Dynamo planner with the simulated planner's settings.
func (d *deployment) plannerService() yaml.MapSlice {
	return yaml.MapSlice{
		{Key: "componentType", Value: "planner"},
		{Key: "replicas", Value: 1},
		{Key: "envFromSecret", Value: hfTokenSecret},
		{Key: "extraPodSpec", Value: yaml.MapSlice{{Key: "mainContainer",
			Value: container(image("dynamo-planner"), []string{"python3", "-m", "dynamo.planner"}, []string{"--config", d.plannerConfig()})}}},
	}
}

// workerService is one worker role: replicas, GPUs per worker (per node when a worker spans
// nodes) and the Dynamo backend wrapper with the backend's own options.
func (d *deployment) workerService(r role) yaml.MapSlice {
	svc := yaml.MapSlice{{Key: "componentType", Value: "worker"}}
	if r.disaggregated() {
		svc = append(svc, yaml.MapItem{Key: "subComponentType", Value: r.name})
	} else if d.cfg.Planner.Policy == spec.PlannerEnabled {
		svc = append(svc, yaml.MapItem{Key: "subComponentType", Value: spec.RoleDecode})
	}
	perPod := r.gpus
	if r.nodes > 1 {
		perPod = r.gpusPerNode
	}
	gpu := yaml.MapSlice{{Key: "gpu", Value: strconv.Itoa(perPod)}}
	svc = append(svc,
		yaml.MapItem{Key: "replicas", Value: r.w.Parallelism.Replicas},
		yaml.MapItem{Key: "envFromSecret", Value: hfTokenSecret},
		yaml.MapItem{Key: "resources", Value: yaml.MapSlice{{Key: "requests", Value: gpu}, {Key: "limits", Value: gpu}}},
	)
	if r.nodes > 1 {
		svc = append(svc, yaml.MapItem{Key: "multinode", Value: yaml.MapSlice{{Key: "nodeCount", Value: r.nodes}}})
	}
	main := container(image(runtimeImage[d.backend]), []string{"python3", "-m", "dynamo." + d.backend}, d.workerArgs(r))
	pod := yaml.MapSlice{}
	if d.backend == spec.BackendTRTLLM {
		main = append(main, yaml.MapItem{Key: "volumeMounts", Value: []yaml.MapSlice{{
			{Key: "name", Value: optionsVolume}, {Key: "mountPath", Value: optionsMount}, {Key: "readOnly", Value: true}}}})
		pod = append(pod, yaml.MapItem{Key: "volumes", Value: []yaml.MapSlice{{
			{Key: "name", Value: optionsVolume},
			{Key: "configMap", Value: yaml.MapSlice{{Key: "name", Value: d.optionsConfigMap()}}}}}})
	}
	pod = append(yaml.MapSlice{{Key: "mainContainer", Value: main}}, pod...)
	return append(svc, yaml.MapItem{Key: "extraPodSpec", Value: pod})
}

// workerArgs are the arguments of `python3 -m dynamo.<backend>` for a role: the model and
// the backend's own options (vLLM, SGLang), or the options YAML (TensorRT-LLM).
func (d *deployment) workerArgs(r role) []string {
	switch d.backend {
	case spec.BackendVLLM:
		args := append([]string{"--model", d.model}, d.engineArgs(r)...)
		return append(args, when(r.disaggregated(), "--disaggregation-mode", r.name)...)
	case spec.BackendSGLang:
		return append([]string{"--model-path", d.model, "--served-model-name", d.model}, d.engineArgs(r)...)
	}
	args := []string{"--model-path", d.model, "--served-model-name", d.model,
		"--extra-engine-args", optionsMount + "/" + r.name + ".yaml"}
	return append(args, when(r.disaggregated(), "--disaggregation-mode", r.name)...)
}
