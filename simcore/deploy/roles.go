package deploy

import (
	"aisimulate/simcore/catalog"
	"aisimulate/simcore/spec"
)

// deployment is one Input resolved for writing: the served model id, the backend and the
// worker roles in manifest order.
type deployment struct {
	in      Input
	cfg     *spec.Config
	backend string
	// model is the id the engines load: the catalog id an alias resolves to, else the id
	// (or local directory) as the configuration gives it.
	model string
	// localModel is true when engine.model is not a catalog id or alias (a local directory).
	localModel bool
	roles      []role
	// name is metadata.name of the manifest (names.go).
	name string
}

// role is one worker role of the deployment.
type role struct {
	// name is the role (aggregated, prefill, decode); service the manifest's service name.
	name, service string
	w             *spec.Worker
	hardware      string
	// gpus is the GPUs one worker occupies: tensor × pipeline × attention_data.
	gpus int
	// gpusPerNode is the hardware's GPUs per node (0 when the catalog does not know it);
	// nodes the nodes one worker spans, ceil(gpus / gpusPerNode).
	gpusPerNode, nodes int
}

// disaggregated reports whether the role hands KV to or takes it from another role.
func (r role) disaggregated() bool { return r.name != spec.RoleAggregated }

func newDeployment(in Input) *deployment {
	cfg := in.Config
	d := &deployment{in: in, cfg: cfg, backend: cfg.Engine.Backend, model: cfg.Engine.Model}
	if m, err := catalog.LookupModel(cfg.Engine.Model, nil); err == nil && m.CatalogID != "" {
		d.model = m.CatalogID
	} else {
		d.localModel = true
	}
	add := func(name, service string, w *spec.Worker) {
		if w == nil {
			return
		}
		p := w.Parallelism
		r := role{name: name, service: service, w: w, hardware: w.Hardware,
			gpus: max(1, p.Tensor) * max(1, p.Pipeline) * max(1, p.AttentionData), nodes: 1}
		if r.hardware == "" {
			r.hardware = cfg.Engine.Hardware
		}
		if h, err := catalog.LookupHardware(r.hardware); err == nil && h.GPUsPerNode > 0 {
			r.gpusPerNode = h.GPUsPerNode
			r.nodes = (r.gpus + h.GPUsPerNode - 1) / h.GPUsPerNode
		}
		d.roles = append(d.roles, r)
	}
	if cfg.Engine.Mode == spec.ModeDisaggregated {
		add(spec.RolePrefill, "prefill", cfg.Engine.Prefill)
		add(spec.RoleDecode, "decode", cfg.Engine.Decode)
	} else {
		add(spec.RoleAggregated, "worker", cfg.Engine.Aggregated)
	}
	d.name = resourceName(in.Number, d.backend, cfg.Engine.Mode)
	return d
}

// totalGPUs is Σ replicas × GPUs per worker over the roles.
func (d *deployment) totalGPUs() int {
	n := 0
	for _, r := range d.roles {
		n += r.w.Parallelism.Replicas * r.gpus
	}
	return n
}
