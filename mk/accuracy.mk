# `make accuracy CSV=path/to/measured.csv` replays every measured row through the simulator
# with the default timing/capacity models and prints TTFT/TPOT MAPE and coverage, then the
# leave-one-campaign-out cross-validation (calibration surrogate, a re-fit per campaign) and
# its error budget; both print each slice "before → after" against the previous timing model's
# figures (tools/calibrate/baseline/baseline.json, docs/timing.md "Before and after").
# BASELINE='-write-baseline FILE -baseline-model NAME' records this run's figures in FILE as
# the next model change's "before" (both harnesses, one section each).
# `make calibrate CSV=… OPS=…` re-derives simcore/perf/calibration.json, and `make intervals
# CSV=…` the default model's error bands (simcore/uncertainty/bands.json, docs/uncertainty.md)
# from it: run it after every calibration change (a test fails until you do). None of them is
# part of `make test`.
# The data paths are arguments (the data is not part of the repository), for example
# CSV=<shared>/calibration/measured.csv OPS=<shared>/calibration/ops/h200_sxm, where <shared> is
# the reference data folder beside the checkout.
need = $(if $($(1)),,$(error pass $(1)=<path>, e.g. make $@ $(1)=<shared>/$(2)))

.PHONY: accuracy accuracy-surrogate calibrate intervals catalog

accuracy:
	$(call need,CSV,calibration/measured.csv)
	$(GO) run ./tools/accuracy $(BASELINE) $(CSV)
	$(GO) run ./tools/calibrate -csv $(CSV) -logo $(BASELINE)

accuracy-surrogate:
	$(call need,CSV,calibration/measured.csv)
	$(GO) run ./tools/accuracy -surrogate $(CSV)

calibrate:
	$(call need,CSV,calibration/measured.csv)
	$(call need,OPS,calibration/ops/h200_sxm)
	$(GO) run ./tools/calibrate -csv $(CSV) -ops $(OPS) -out simcore/perf/calibration.json

intervals:
	$(call need,CSV,calibration/measured.csv)
	$(GO) run ./tools/calibrate -csv $(CSV) -intervals simcore/uncertainty/bands.json

# Regenerate the embedded model/hardware catalogs from config.json and system files.
catalog:
	$(call need,MODELS,models)
	$(call need,SYSTEMS,systems)
	$(GO) run ./tools/gencatalog -models $(MODELS) -systems $(SYSTEMS) -out simcore/catalog
