package cli

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"aisimulate/simcore"
	"aisimulate/simcore/spec"
)

// argParser reads a command's arguments like Python's argparse, as the original does:
// --opt VALUE, --opt=VALUE, unique prefixes of long options, -c VALUE / -cVALUE, -h, and --
// ending the options. flags maps every long option to whether it takes a value; usage builds
// the command's usage error.
type argParser struct {
	flags map[string]bool
	usage func(msg string) error
}

// parse calls set with the long name and value of every option in args, in order, and
// returns the arguments that are not options of this command. A -c value is reported as
// --config.
func (p argParser) parse(args []string, set func(name, value string) error) (extra []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(extra, args[i+1:]...), nil
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			extra = append(extra, a)
			continue
		}
		name, value, hasValue := a, "", false
		if strings.HasPrefix(a, "--") {
			if eq := strings.IndexByte(a, '='); eq >= 0 {
				name, value, hasValue = a[:eq], a[eq+1:], true
			}
			full, err := p.resolveLong(name)
			if err != nil {
				return nil, err
			}
			if full == "" {
				extra = append(extra, a)
				continue
			}
			name = full
		} else {
			switch {
			case a == "-h":
				name = "--help"
			case strings.HasPrefix(a, "-c"):
				name = "--config"
				if len(a) > 2 {
					value, hasValue = strings.TrimPrefix(a[2:], "="), true
				}
			default:
				extra = append(extra, a)
				continue
			}
		}
		display := name
		if name == "--config" {
			display = "-c/--config"
		}
		if p.flags[name] {
			if !hasValue {
				if i+1 >= len(args) || (strings.HasPrefix(args[i+1], "-") && args[i+1] != "-" && !isNegativeNumber(args[i+1])) {
					return nil, p.usage("argument " + display + ": expected one argument")
				}
				i++
				value = args[i]
			}
		} else if hasValue {
			return nil, p.usage("argument " + display + ": ignored explicit argument '" + value + "'")
		}
		if err := set(name, value); err != nil {
			return nil, err
		}
	}
	return extra, nil
}

// resolveLong expands a long option or a unique prefix of one; "" means unknown.
func (p argParser) resolveLong(name string) (string, error) {
	if _, ok := p.flags[name]; ok {
		return name, nil
	}
	var matches []string
	for _, f := range p.names() {
		if strings.HasPrefix(f, name) {
			matches = append(matches, f)
		}
	}
	switch len(matches) {
	case 0:
		return "", nil
	case 1:
		return matches[0], nil
	}
	return "", p.usage(fmt.Sprintf("ambiguous option: %s could match %s", name, strings.Join(matches, ", ")))
}

// names are the long options, sorted.
func (p argParser) names() []string {
	names := make([]string, 0, len(p.flags))
	for f := range p.flags {
		names = append(names, f)
	}
	sort.Strings(names)
	return names
}

// commonOptions are the options predict and recommend share.
type commonOptions struct {
	config     string
	haveConfig bool
	stack      string
	sets       []string
	outputDir  string
	overwrite  bool
	format     string
	progress   bool
	help       bool
}

// checkRun applies the rules both commands check before reading the configuration: the
// stack must be the installed one, and AISIMULATE_FIXED_WALL_TIME_MS, when set, a finite
// number ≥ 0 (the wall time then reported; nil when unset).
func (o *commonOptions) checkRun(env []string) (fixedWall *float64, err error) {
	if o.stack != spec.Stack {
		return nil, &usageError{topUsage, "aisimulate", fmt.Sprintf(
			"stack '%s' is unavailable; installed stacks: %s. Pass --stack %s.", o.stack, spec.Stack, spec.Stack)}
	}
	if v, ok := getenv(env, simcore.EnvFixedWallTimeMs); ok {
		f, perr := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if perr != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
			return nil, &usageError{topUsage, "aisimulate", simcore.EnvFixedWallTimeMs + " must be a finite number >= 0, got '" + v + "'"}
		}
		fixedWall = &f
	}
	return fixedWall, nil
}

// newCommonOptions holds the shared defaults: the original's default stack (refused with a
// hint, README "Decisions"), the default output directory and the table format.
func newCommonOptions() commonOptions {
	return commonOptions{stack: "engine", outputDir: DefaultOutputDir, format: "table"}
}

// set applies a shared option; handled is false for the command's own options. usage builds
// the command's usage error.
func (o *commonOptions) set(name, value string, usage func(string) error) (handled bool, err error) {
	switch name {
	case "--help":
		o.help = true
	case "--config":
		o.config, o.haveConfig = value, true
	case "--stack":
		o.stack = value
	case "--set":
		o.sets = append(o.sets, value)
	case "--output-dir":
		o.outputDir = value
	case "--overwrite":
		o.overwrite = true
	case "--format":
		if value != "table" && value != "json" {
			return true, usage(fmt.Sprintf("argument --format: invalid choice: '%s' (choose from 'table', 'json')", value))
		}
		o.format = value
	case "--progress":
		o.progress = true
	default:
		return false, nil
	}
	return true, nil
}
