package perf

import (
	"testing"

	"aisimulate/simcore/catalog"
	"aisimulate/simcore/spec"
)

// defaultFor is NewDeployment followed by NewDefaultWith: the tests' way to price one
// deployment with a calibration table.
func defaultFor(c *Calibration, m *catalog.Model, hw *catalog.Hardware, backend string, par spec.Parallelism, q Quant) (*Default, error) {
	dep, err := NewDeployment(m, hw, backend, par, q)
	if err != nil {
		return nil, err
	}
	return NewDefaultWith(c, dep)
}

// memoryFor is NewDeployment followed by Deployment.Memory.
func memoryFor(m *catalog.Model, hw *catalog.Hardware, backend string, par spec.Parallelism, q Quant, ms MemorySettings) (Memory, error) {
	dep, err := NewDeployment(m, hw, backend, par, q)
	if err != nil {
		return Memory{}, err
	}
	return dep.Memory(ms)
}

// kvBlocksFor is NewDeployment followed by Deployment.KVCapacityBlocks.
func kvBlocksFor(m *catalog.Model, hw *catalog.Hardware, backend string, par spec.Parallelism, q Quant, ms MemorySettings, blockSize int) (int, error) {
	dep, err := NewDeployment(m, hw, backend, par, q)
	if err != nil {
		return 0, err
	}
	return dep.KVCapacityBlocks(ms, blockSize)
}

// The timing model and the memory model of one deployment price the same resolved inputs:
// the timing model holds the deployment's shape (built once), whose per-GPU weights are the
// memory model's weights, and the parallelism and quantisation are resolved before either
// sees them.
func TestDeploymentIsResolvedOnce(t *testing.T) {
	m := mustModel(t, "deepseek-ai/DeepSeek-R1")
	dep, err := NewDeployment(m, mustHW(t, "h200_sxm"), spec.BackendSGLang, spec.Parallelism{Tensor: 8}, Quant{})
	if err != nil {
		t.Fatal(err)
	}
	// Unset sizes are 1, and unset MoE parallelism shards the experts like the attention.
	if p := dep.Par; p.Replicas != 1 || p.Pipeline != 1 || p.AttentionData != 1 || p.MoeTensor != 8 || p.MoeExpert != 1 {
		t.Errorf("parallelism %+v", p)
	}
	if dep.Quant.Gemm != m.GemmQuant || dep.Quant.KVCache == "" || dep.Quant.Comm == "" {
		t.Errorf("quantisation %+v", dep.Quant)
	}
	d, err := NewDefault(dep)
	if err != nil {
		t.Fatal(err)
	}
	if d.s != dep.shape {
		t.Error("the timing model built a second shape")
	}
	mem, err := dep.Memory(MemorySettings{MemoryFraction: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	if mem.Weights != int64(dep.shape.weightBytesPerGPU()) {
		t.Errorf("memory weights %d, shape weights %v", mem.Weights, dep.shape.weightBytesPerGPU())
	}
}
