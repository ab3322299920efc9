package perf

import (
	"aisimulate/simcore/catalog"
	"aisimulate/simcore/spec"
)

// Deployment is one worker role resolved for pricing: the model, the hardware, the backend,
// the parallelism with its defaults applied and checked against the model, and every
// quantisation mode resolved against the model. lowerPool builds it once per role and hands
// it to the timing model (NewDefault) and the memory model (Deployment.Memory), which share
// its per-GPU decomposition of the model (shape), built here once.
type Deployment struct {
	Model    *catalog.Model
	Hardware *catalog.Hardware
	Backend  string
	// Par is the worker's parallelism, normalised (every size at least 1; unset MoE
	// parallelism sharded like the attention).
	Par spec.Parallelism
	// Quant has every mode resolved (the configured one or the model's default).
	Quant Quant
	shape *shape
}

// NewDeployment resolves the quantisation and the parallelism of one worker role. An
// unsupported quantisation mode or a parallelism the model cannot be split by is an *Error
// naming the key.
func NewDeployment(m *catalog.Model, hw *catalog.Hardware, backend string, par spec.Parallelism, quant Quant) (*Deployment, error) {
	q, err := quant.Resolve(m)
	if err != nil {
		return nil, err
	}
	par, err = normalize(m, par, backend)
	if err != nil {
		return nil, err
	}
	return &Deployment{Model: m, Hardware: hw, Backend: backend, Par: par, Quant: q, shape: newShape(m, par, q)}, nil
}
