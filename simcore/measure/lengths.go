package measure

import (
	"math"
	"strings"

	"aisimulate/simcore/spec"
)

// readAIPerfLengths reads the length draw of AIPerf's synthetic prompts from its input
// configuration (docs/calibration.md, "Length draws"): input.prompt.input_tokens.{mean,
// stddev} and input.prompt.output_tokens.{mean, stddev} (--synthetic-input-tokens-mean/
// -stddev, --output-tokens-mean/-stddev; an absent stddev is AIPerf's default 0). The draw is
// a normal of σ/mean per length around the means. A configuration without input.prompt
// (prompts from a dataset file) records none.
func readAIPerfLengths(cfg object, m *Measurement) error {
	in, ok, err := cfg.child("input")
	if err != nil || !ok {
		return err
	}
	prompt, ok, err := in.child("prompt")
	if err != nil || !ok {
		return err
	}
	isl, inRatio, err := aiperfTokens(prompt, "input_tokens")
	if err != nil {
		return err
	}
	if isl == 0 {
		return nil // no synthetic prompt length: not a synthetic run
	}
	osl, outRatio, err := aiperfTokens(prompt, "output_tokens")
	if err != nil {
		return err
	}
	if osl == 0 {
		osl = m.OSL // outputs not bounded by the client: the measured mean, undrawn
	}
	m.Lengths = spec.Lengths{Distribution: spec.LengthsNormal, InputStddevRatio: inRatio, OutputStddevRatio: outRatio}
	if e := m.Lengths.Validate("lengths"); e != nil {
		field := "input_tokens.stddev"
		if strings.HasSuffix(e.Path, "output_stddev_ratio") {
			field = "output_tokens.stddev"
		}
		return prompt.fail(field, "divided by the mean: %s (the bound of the simulator's normal draw, docs/config.md)", e.Msg)
	}
	if m.Lengths.Constant() {
		m.Lengths = spec.Lengths{}
	}
	m.LengthsRecorded, m.DrawISL, m.DrawOSL = true, isl, osl
	return nil
}

// aiperfTokens reads {mean, stddev} at k: the mean rounded to whole tokens (0 when absent)
// and stddev/mean.
func aiperfTokens(prompt object, k string) (mean int, ratio float64, err error) {
	t, ok, err := prompt.child(k)
	if err != nil || !ok {
		return 0, 0, err
	}
	mu, err := t.optPositive("mean")
	if err != nil || mu == 0 {
		return 0, 0, err
	}
	sd, ok, err := t.number("stddev", false)
	if err != nil {
		return 0, 0, err
	}
	if ok && sd < 0 {
		return 0, 0, t.fail("stddev", "must be ≥ 0, got %g", sd)
	}
	return meanLength(mu), sd / mu, nil
}

// readSGLangLengths reads the length draw of SGLang bench_serving's random datasets
// (dataset_name random or random-ids): every length uniform in [⌊r·L⌋, L] for
// random_range_ratio r and L = random_input_len, random_output_len. A ratio of 1 (or more)
// is constant lengths; other datasets record none.
func readSGLangLengths(o object, m *Measurement) error {
	ds, err := o.str("dataset_name")
	if err != nil {
		return err
	}
	if (ds != "random" && ds != "random-ids") || !o.has("random_range_ratio") {
		return nil
	}
	r, _, err := o.number("random_range_ratio", false)
	if err != nil {
		return err
	}
	if r < 0 {
		return o.fail("random_range_ratio", "must be ≥ 0, got %g", r)
	}
	isl, err := o.count("random_input_len")
	if err != nil {
		return err
	}
	osl, err := o.count("random_output_len")
	if err != nil {
		return err
	}
	if r < 1 {
		m.Lengths = spec.Lengths{Distribution: spec.LengthsUniform, MinRatio: r, MaxRatio: 1}
	}
	m.LengthsRecorded, m.DrawISL, m.DrawOSL = true, isl, osl
	return nil
}

// DrawLengths are the lengths a replay of m draws around (docs/calibration.md, "Length
// draws"): with constant lengths its mean lengths; else the client's settings when the file
// records them (DrawISL, DrawOSL), or the mean lengths divided by the draw's mean factor (a
// one-sided draw's mean lies below L).
func (m *Measurement) DrawLengths() (isl, osl int) {
	if m.Lengths.Constant() {
		return m.ISL, m.OSL
	}
	if m.DrawISL > 0 {
		return m.DrawISL, m.DrawOSL
	}
	f := m.Lengths.MeanFactor()
	return max(int(math.Round(float64(m.ISL)/f)), 1), max(int(math.Round(float64(m.OSL)/f)), 1)
}

// MeanLengths are the run's mean input and output lengths. A file that gives its client's
// settings rather than the measured means (a measured-runs CSV row: DrawISL and DrawOSL set,
// no draw recorded) whose client drew around them (calibrate's --lengths) averaged the draw's
// mean factor times them (a one-sided uniform draw of ratio 0.8: 0.9); otherwise ISL and OSL.
func (m *Measurement) MeanLengths() (isl, osl int) {
	if m.LengthsRecorded || m.DrawOSL == 0 || m.Lengths.Constant() {
		return m.ISL, m.OSL
	}
	f := m.Lengths.MeanFactor()
	return max(int(math.Round(float64(m.DrawISL)*f)), 1), max(int(math.Round(float64(m.DrawOSL)*f)), 1)
}
