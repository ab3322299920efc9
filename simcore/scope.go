package simcore

import (
	"io/fs"

	"aisimulate/simcore/catalog"
	"aisimulate/simcore/perf"
	"aisimulate/simcore/spec"
)

// deploymentScope is the calibration scope of a configuration's deployment
// (docs/calibration.md, "Scope"): the catalog id of its model, the GPU, backend and its
// version, the serving mode, the resolved quantisation and every role's parallelism.
func deploymentScope(cfg *spec.Config, files fs.FS) (spec.ProfileScope, error) {
	e := &cfg.Engine
	model, err := catalog.LookupModel(e.Model, files)
	if err != nil {
		return spec.ProfileScope{}, configError(err, "")
	}
	q, err := perf.QuantFromEngine(e).Resolve(model)
	if err != nil {
		return spec.ProfileScope{}, configError(err, "")
	}
	// The catalog id an alias resolved to (an instruction-tuned release is its base
	// model's entry), so a profile matches the model however it is spelled; a local model
	// directory is its path.
	id := model.ID
	if model.CatalogID != "" {
		id = model.CatalogID
	}
	s := spec.ProfileScope{Model: id, Hardware: e.Hardware, Backend: e.Backend, Mode: e.Mode,
		Quantization: spec.ProfileQuantization{Gemm: q.Gemm, MoE: q.MoE, KVCache: q.KVCache}, Roles: map[string]spec.ProfileRole{}}
	if e.BackendVersion != nil {
		s.BackendVersion = *e.BackendVersion
	}
	s.Lengths = cfg.Traffic.Source.Lengths.Canonical()
	for name, w := range roleWorkers(e) {
		p := w.Parallelism
		s.Roles[name] = spec.ProfileRole{Tensor: p.Tensor, Pipeline: p.Pipeline, AttentionData: p.AttentionData, MoeTensor: p.MoeTensor, MoeExpert: p.MoeExpert}
	}
	return s, nil
}

// roleWorkers are the configuration's roles by name.
func roleWorkers(e *spec.Engine) map[string]*spec.Worker {
	if e.Mode == spec.ModeDisaggregated {
		return map[string]*spec.Worker{spec.RolePrefill: e.Prefill, spec.RoleDecode: e.Decode}
	}
	return map[string]*spec.Worker{spec.RoleAggregated: e.Aggregated}
}
