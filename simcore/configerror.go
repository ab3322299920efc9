package simcore

import (
	"errors"

	"aisimulate/simcore/catalog"
	"aisimulate/simcore/internal/traffic"
	"aisimulate/simcore/perf"
	"aisimulate/simcore/spec"
)

// configError turns an error found while lowering a validated configuration (reading the
// trace files, resolving the model and hardware, pricing the deployment) into the *spec.Error
// of the configuration value at fault (docs/config.md, "Errors"); other errors pass through
// as execution failures. role is the worker role whose section holds the value: perf's
// worker keys are placed under it, and a hardware lookup names it when that role overrides
// engine.hardware ("" otherwise).
func configError(err error, role string) error {
	var te *traffic.Error
	var ce *catalog.Error
	var pe *perf.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &te):
		if te.BlockSize {
			return spec.At(spec.PathTraceBlockSize, err)
		}
		return spec.At(spec.PathTracePaths, err)
	case errors.As(err, &ce):
		switch {
		case !ce.Hardware:
			return spec.At(spec.PathModel, err)
		case role != "":
			return spec.At(spec.WorkerPath(role, "hardware"), err)
		}
		return spec.At(spec.PathHardware, err)
	case errors.As(err, &pe):
		if pe.Worker {
			return spec.At(spec.WorkerPath(role, pe.Key), err)
		}
		return spec.At(spec.EnginePath(pe.Key), err)
	}
	return err
}

// deploymentError is configError for a deployment that cannot be priced (perf.NewDeployment):
// a quantisation mode is reported at its key; a parallelism the model cannot be split by at
// the parallelism key when the default timing model needs the deployment, and at the role's
// kv_cache.capacity when only the memory model does (capacityError), where the memory model
// has always reported it.
func deploymentError(err error, role string, forTiming bool) error {
	var pe *perf.Error
	if !forTiming && errors.As(err, &pe) && pe.Worker {
		return capacityError(err, role)
	}
	return configError(err, role)
}

// capacityError is configError for the KV capacity of `capacity: {type: default}`: whatever
// keeps the memory model from sizing the cache is reported at the role's kv_cache.capacity,
// the value to change (or replace by a fixed capacity).
func capacityError(err error, role string) error {
	return spec.At(spec.WorkerPath(role, "kv_cache.capacity"), err)
}
