// Package host runs the aisimulate wasip1 command module under wazero: it embeds the module
// bytes, compiles them once into an on-disk compilation cache, mounts the host file system,
// passes arguments, environment and standard streams, and maps signals to exit code 130.
// It contains no simulation code and must not import simcore.
package host

import (
	"bufio"
	"context"
	"crypto/rand"
	"embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"aisimulate/host/wire"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental/sysfs"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"
)

// moduleDir holds aisimulate.wasm once `make build` has written it (see module/README.md).
//
//go:embed module
var moduleDir embed.FS

// ModuleFile is the name of the module inside the embedded directory.
const ModuleFile = "module/aisimulate.wasm"

// EnvCache overrides the compilation cache directory; "off" disables the cache.
const EnvCache = "AISIMULATE_WAZERO_CACHE"

// EnvEvaluators caps the local evaluator instances of `recommend` (Config.Evaluators); the
// default is the number of cores.
const EnvEvaluators = "AISIMULATE_EVALUATORS"

// Exit codes the host itself produces.
const (
	ExitFailure     = 1   // the module could not be run
	ExitInterrupted = 130 // SIGINT, SIGTERM, SIGHUP or SIGQUIT
)

// Module returns the embedded wasip1 module, or nil when the binary was built without it.
func Module() []byte {
	b, err := moduleDir.ReadFile(ModuleFile)
	if err != nil || len(b) == 0 {
		return nil
	}
	return b
}

// Config is one run of the module.
type Config struct {
	// Args are the command-line arguments after the program name.
	Args []string
	// Env are KEY=VALUE environment entries visible to the module.
	Env []string
	// Stdin, Stdout and Stderr are the module's standard streams (nil = empty / discard).
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// CacheDir is the compilation cache directory; "" runs without a cache.
	CacheDir string
	// Evaluators caps the local evaluator instances of `recommend` (0: the number of cores;
	// docs/recommend.md, "Parallel and remote evaluation").
	Evaluators int
	// Interruptible makes cancelling the context stop a running module (wazero's
	// WithCloseOnContextDone). It costs the module about 3x in speed, because wazero then
	// checks for cancellation at every function entry and loop; Main does not use it and
	// ends the process on a signal instead.
	Interruptible bool
}

// DefaultCacheDir is where compiled code is kept between runs:
// $AISIMULATE_WAZERO_CACHE, else <user cache dir>/aisimulate/wazero; "" when unavailable.
func DefaultCacheDir() string {
	if v, ok := os.LookupEnv(EnvCache); ok {
		if v == "off" {
			return ""
		}
		return v
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "aisimulate", "wazero")
}

// Main is the native program: it runs the embedded module with the process arguments,
// environment (plus PWD = the working directory) and standard streams, and returns the exit
// code. On SIGINT, SIGTERM, SIGHUP or SIGQUIT the process exits at once with 130: the module writes its outputs
// to temporary files renamed into place at the very end, so stopping it anywhere leaves no
// partial prediction.json, and the module runs without wazero's cancellation checks.
func Main(args []string) int {
	module := Module()
	if module == nil {
		fmt.Fprintln(os.Stderr, "aisimulate: the simulator module was not built into this binary; build with `make build`")
		return ExitFailure
	}
	// Under an address-space limit that leaves the runtime no room, stop before loading the
	// module: past this point the Go runtime itself would die with a goroutine dump.
	if room, limited := addressSpaceRoom(); limited && room < minReservation {
		fmt.Fprintf(os.Stderr, "%s: %s\n", failurePrefix(args), noRoomMessage())
		return ExitFailure
	}
	signals := make(chan os.Signal, 1)
	// SIGHUP (the terminal closed) and SIGQUIT would otherwise end the process without undoing
	// its outputs (SIGQUIT with a goroutine dump): all four interrupt the run the same way.
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	go func() {
		<-signals
		undoRunning()
		fmt.Fprintln(os.Stderr, "\naisimulate: interrupted; no outputs were written")
		os.Exit(ExitInterrupted)
	}()
	return Run(context.Background(), module, Config{
		Args:       args,
		Env:        TableEnv(ModuleEnv(os.Environ(), isTerminal(os.Stderr)), isTerminal(os.Stdout), terminalColumns(os.Stdout)),
		Stdin:      os.Stdin,
		Stdout:     os.Stdout,
		Stderr:     os.Stderr,
		CacheDir:   DefaultCacheDir(),
		Evaluators: evaluatorsFromEnv(os.Getenv(EnvEvaluators)),
	})
}

// evaluatorsFromEnv reads $AISIMULATE_EVALUATORS: a positive integer, else 0 (the default).
func evaluatorsFromEnv(v string) int {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 1 {
		return 0
	}
	return n
}

// ModuleEnv is the environment given to the module: the process environment with PWD set
// to the real working directory (relative paths resolve against it inside the module) and
// AISIMULATE_PROGRESS=1 added when stderr is a terminal and the variable is unset.
func ModuleEnv(environ []string, stderrIsTerminal bool) []string {
	env := make([]string, 0, len(environ)+2)
	progressSet := false
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if k == "PWD" {
			continue
		}
		progressSet = progressSet || k == "AISIMULATE_PROGRESS"
		env = append(env, kv)
	}
	if wd, err := os.Getwd(); err == nil {
		env = append(env, "PWD="+filepath.ToSlash(wd))
	}
	if stderrIsTerminal && !progressSet {
		env = append(env, "AISIMULATE_PROGRESS=1")
	}
	return env
}

// TableEnv adds, when standard output is a terminal, AISIMULATE_TABLE=readable (the table
// for a person instead of the spec's AIPerf table) and COLUMNS=<terminal width> (when the
// width is known), each only when the environment does not set it already; shells keep
// COLUMNS unexported, so the module would not see it otherwise (docs/architecture.md).
func TableEnv(env []string, stdoutIsTerminal bool, columns int) []string {
	if !stdoutIsTerminal {
		return env
	}
	if envValue(env, "AISIMULATE_TABLE") == "" {
		env = append(env, "AISIMULATE_TABLE=readable")
	}
	if envValue(env, "COLUMNS") == "" && columns > 0 {
		env = append(env, "COLUMNS="+strconv.Itoa(columns))
	}
	return env
}

// CacheKeep is how many compiled modules the cache keeps: every rebuilt module adds an
// entry of about 25 MB, so older ones are deleted (a binary whose entry went is simply
// compiled again on its next run).
const CacheKeep = 4

// PruneCache deletes all but the keep most recently written compiled-module files in each
// wazero version directory under dir. Errors are ignored: the cache is an optimisation.
func PruneCache(dir string, keep int) {
	subdirs, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, sd := range subdirs {
		if !sd.IsDir() || !strings.HasPrefix(sd.Name(), "wazero-") {
			continue
		}
		vdir := filepath.Join(dir, sd.Name())
		entries, err := os.ReadDir(vdir)
		if err != nil || len(entries) <= keep {
			continue
		}
		type entry struct {
			path string
			mod  int64
		}
		var files []entry
		for _, e := range entries {
			if info, err := e.Info(); err == nil && info.Mode().IsRegular() && isHexKey(e.Name()) {
				files = append(files, entry{filepath.Join(vdir, e.Name()), info.ModTime().UnixNano()})
			}
		}
		sort.Slice(files, func(i, j int) bool { return files[i].mod > files[j].mod })
		for i := keep; i < len(files); i++ {
			os.Remove(files[i].path)
		}
	}
}

// isHexKey reports whether name looks like a wazero cache key (64 hex digits).
func isHexKey(name string) bool {
	if len(name) != 64 {
		return false
	}
	for _, c := range name {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Run compiles (or loads from the cache) and runs the module once, returning its exit
// code. A context cancelled before the module starts gives 130; with cfg.Interruptible a
// cancellation also stops a running module (130).
func Run(ctx context.Context, module []byte, cfg Config) int {
	stderr := cfg.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	// The module's stderr goes through a filter that turns a Go runtime crash (a panic, an
	// out-of-memory) into one line and exit 1 (docs/robustness.md).
	guestErr := &crashFilter{w: stderr, trace: envValue(cfg.Env, EnvTraceback) == "1"}
	rc := wazero.NewRuntimeConfig().WithCloseOnContextDone(cfg.Interruptible)
	if cfg.CacheDir != "" {
		if cache, err := wazero.NewCompilationCacheWithDir(cfg.CacheDir); err == nil {
			defer cache.Close(context.Background())
			rc = rc.WithCompilationCache(cache)
		}
	}
	r := wazero.NewRuntimeWithConfig(ctx, rc)
	defer r.Close(context.Background())
	wasi_snapshot_preview1.MustInstantiate(ctx, r)
	// Decoding and validating the module allocates a lot and keeps most of it, so the
	// collector would only trace live data: it is off while the module compiles.
	gcPercent := debug.SetGCPercent(-1)
	compiled, err := r.CompileModule(ctx, module)
	debug.SetGCPercent(gcPercent)
	if err != nil {
		if ctx.Err() != nil {
			return ExitInterrupted
		}
		fmt.Fprintf(stderr, "aisimulate: cannot compile the simulator module: %v\n", err)
		return ExitFailure
	}
	if cfg.CacheDir != "" {
		PruneCache(cfg.CacheDir, CacheKeep)
	}
	if ctx.Err() != nil {
		return ExitInterrupted
	}
	files := newOutputFS("/")
	// A write the module saw as EIO is reported with its real reason (host/writeerror.go).
	guestErr.w = writeErrorText{w: stderr, fs: files}
	running.Lock()
	running.fs = files
	running.Unlock()
	defer func() {
		running.Lock()
		running.fs = nil
		running.Unlock()
	}()
	base := wazero.NewModuleConfig().
		WithSysWalltime().WithSysNanotime().WithSysNanosleep().
		WithRandSource(rand.Reader)
	for _, kv := range cfg.Env {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			base = base.WithEnv(k, v)
		}
	}
	// Under an address-space limit the module's memory is what the limit leaves (withMemory):
	// the module sizes its memory estimate to it, so a run too large is refused before it
	// simulates, naming the field (docs/robustness.md, "Address-space limits").
	if room, limited := addressSpaceRoom(); limited && room < instanceReservation {
		base = base.WithEnv(wire.EnvMemoryBytes, strconv.FormatUint(room, 10))
	}
	// recommend's evaluators: instances of the same compiled module (host/evaluators.go).
	evals := &evalHost{dir: envValue(cfg.Env, "PWD"), cores: cfg.Evaluators, startInstance: func(i int) (*instance, error) {
		return startInstance(ctx, r, compiled, base, i)
	}}
	defer evals.close()
	if err := evals.define(ctx, r); err != nil {
		fmt.Fprintf(stderr, "aisimulate: cannot define the host functions: %v\n", err)
		return ExitFailure
	}
	mc := base.WithName("aisimulate").
		WithArgs(append([]string{"aisimulate"}, cfg.Args...)...).
		WithFSConfig(wazero.NewFSConfig().(sysfs.FSConfig).WithSysFSMount(files, "/")).
		WithStderr(guestErr)
	if cfg.Stdin != nil {
		mc = mc.WithStdin(cfg.Stdin)
	}
	if cfg.Stdout != nil {
		mc = mc.WithStdout(cfg.Stdout)
	}
	// Under an address-space limit too small for any guest memory, say so in one line
	// (wazero cannot instantiate a module whose memory holds nothing).
	if room, limited := addressSpaceRoom(); limited && room < minReservation {
		fmt.Fprintf(stderr, "%s: %s\n", failurePrefix(cfg.Args), noRoomMessage())
		return ExitFailure
	}
	// The guest memory is a reserved mapping (see withMemory): a run of 20k requests went
	// from 2.0 s / 250 MB with wazero's copying default to 1.3 s / 110 MB.
	mod, err := r.InstantiateModule(withMemory(ctx), compiled, mc)
	if mod != nil {
		mod.Close(context.Background())
	}
	evals.close()
	guestErr.flush()
	if ctx.Err() != nil {
		return ExitInterrupted
	}
	if guestErr.crashed {
		fmt.Fprintf(stderr, "%s: %s\n", failurePrefix(cfg.Args), crashMessage(guestErr.report, cfg.Args))
		return ExitFailure
	}
	if err == nil {
		return 0
	}
	var exit *sys.ExitError
	if errors.As(err, &exit) {
		return int(exit.ExitCode())
	}
	fmt.Fprintf(stderr, "%s: %s\n", failurePrefix(cfg.Args), trapMessage(err))
	return ExitFailure
}

// trapMessage is the one-line reason for a WebAssembly trap (wazero's error has the trap on its
// first line and a wasm stack trace after it).
func trapMessage(err error) string {
	first, _, _ := strings.Cut(err.Error(), "\n")
	msg := "internal error: the simulator module trapped (" + first + ")"
	if strings.Contains(first, "out of bounds memory access") {
		msg += "; this is how running out of its 4 GiB of WebAssembly memory can show"
	}
	return msg
}

// envValue is the value of key in KEY=VALUE entries ("" when absent; the last one wins).
func envValue(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}

// startInstance starts evaluator instance i of compiled (`aisimulate __evaluate`, host/wire)
// with the run's environment and the host file system mounted read-only at "/": it answers
// the frames written to its standard input until that input is closed.
func startInstance(ctx context.Context, r wazero.Runtime, compiled wazero.CompiledModule, base wazero.ModuleConfig, i int) (*instance, error) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	inst := &instance{name: fmt.Sprintf("aisimulate-evaluator-%d", i+1), stdin: inW, stdout: bufio.NewReader(outR),
		stderr: &syncBuffer{}, done: make(chan struct{})}
	mc := base.WithName(inst.name).
		WithArgs("aisimulate", wire.EvaluateCommand).
		WithFSConfig(wazero.NewFSConfig().WithReadOnlyDirMount("/", "/")).
		WithStdin(inR).WithStdout(outW).WithStderr(inst.stderr)
	go func() {
		mod, err := r.InstantiateModule(withMemory(ctx), compiled, mc)
		if mod != nil {
			mod.Close(context.Background())
		}
		var exit *sys.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == 0 {
			err = nil
		}
		inst.err = err
		outW.CloseWithError(io.ErrUnexpectedEOF)
		inR.Close()
		close(inst.done)
	}()
	return inst, nil
}
