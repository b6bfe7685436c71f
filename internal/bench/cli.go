package bench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"
)

// Exit codes of Main.
const (
	ExitOK         = 0
	ExitError      = 1
	ExitBadOptions = 2
)

// listFlag collects a repeatable flag's values in order.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// phaseFlags are the flags of "bench load" and "bench run".
type phaseFlags struct {
	files, pairs listFlag
	preset, uri  string
	threads      int
	target       float64
	status       bool
	jsonOut      bool
	drop         bool
	seed         uint64
}

func (f *phaseFlags) bind(fs *flag.FlagSet) {
	fs.Var(&f.files, "P", "YCSB property file (repeatable; later files override)")
	fs.Var(&f.pairs, "p", "property name=value (repeatable; overrides files)")
	fs.StringVar(&f.preset, "workload", "", "YCSB core workload preset a-f (applied before -P and -p)")
	fs.StringVar(&f.uri, "uri", "", "mongodb:// URI (overrides -p mongodb.url)")
	fs.IntVar(&f.threads, "threads", 0, "client threads (overrides threadcount)")
	fs.Float64Var(&f.target, "target", 0, "total operations per second (overrides target; 0 = unthrottled)")
	fs.BoolVar(&f.status, "s", true, "print a status line every status.interval seconds to stderr")
	fs.BoolVar(&f.jsonOut, "json", false, "print the result as JSON instead of YCSB's text")
	fs.BoolVar(&f.drop, "drop", false, "drop the table before loading")
	fs.Uint64Var(&f.seed, "seed", 0, "random seed (0 = random)")
}

// properties merges preset, files, -p pairs and flags, in that order.
func (f *phaseFlags) properties() (Properties, error) {
	p := Properties{}
	if f.preset != "" {
		pre, err := Preset(f.preset)
		if err != nil {
			return nil, err
		}
		p.Merge(pre)
	}
	for _, path := range f.files {
		fp, err := LoadPropertiesFile(path)
		if err != nil {
			return nil, err
		}
		p.Merge(fp)
	}
	for _, pair := range f.pairs {
		if err := p.SetPair(pair); err != nil {
			return nil, err
		}
	}
	if f.uri != "" {
		p["mongodb.url"] = f.uri
	}
	if f.threads > 0 {
		p["threadcount"] = fmt.Sprint(f.threads)
	}
	if f.target > 0 {
		p["target"] = fmt.Sprint(f.target)
	}
	return p, nil
}

// Main runs "relaydb bench <load|run|suite|experiment|failover|soak> [flags]" and returns the exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, benchUsage)
		return ExitBadOptions
	}
	switch args[0] {
	case PhaseLoad, PhaseRun:
		return phaseMain(args[0], args[1:], stdout, stderr)
	case "suite":
		if suiteMain == nil {
			fmt.Fprintln(stderr, "relaydb bench suite: not available in this build")
			return ExitError
		}
		return suiteMain(args[1:], stdout, stderr)
	case "experiment":
		if experimentMain == nil {
			fmt.Fprintln(stderr, "relaydb bench experiment: not available in this build")
			return ExitError
		}
		return experimentMain(args[1:], stdout, stderr)
	case "failover":
		if failoverMain == nil {
			fmt.Fprintln(stderr, "relaydb bench failover: not available in this build")
			return ExitError
		}
		return failoverMain(args[1:], stdout, stderr)
	case "soak":
		if soakMain == nil {
			fmt.Fprintln(stderr, "relaydb bench soak: not available in this build")
			return ExitError
		}
		return soakMain(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, benchUsage)
		return ExitOK
	default:
		fmt.Fprintf(stderr, "relaydb bench: unknown command %q\n%s", args[0], benchUsage)
		return ExitBadOptions
	}
}

// suiteMain is set by the suite package's registration (it imports this
// package, so this package cannot call it directly).
var suiteMain func(args []string, stdout, stderr io.Writer) int

// RegisterSuite installs the "suite" subcommand.
func RegisterSuite(f func(args []string, stdout, stderr io.Writer) int) { suiteMain = f }

// experimentMain is set by RegisterExperiment (package experiment imports
// this one).
var experimentMain func(args []string, stdout, stderr io.Writer) int

// RegisterExperiment installs the "experiment" subcommand.
func RegisterExperiment(f func(args []string, stdout, stderr io.Writer) int) { experimentMain = f }

// failoverMain is set by RegisterFailover (package failover imports this
// one).
var failoverMain func(args []string, stdout, stderr io.Writer) int

// RegisterFailover installs the "failover" subcommand.
func RegisterFailover(f func(args []string, stdout, stderr io.Writer) int) { failoverMain = f }

// soakMain is set by RegisterSoak (package soak imports this one).
var soakMain func(args []string, stdout, stderr io.Writer) int

// RegisterSoak installs the "soak" subcommand.
func RegisterSoak(f func(args []string, stdout, stderr io.Writer) int) { soakMain = f }

const benchUsage = `Usage:
  relaydb bench load  [flags]   insert recordcount records (YCSB -load)
  relaydb bench run   [flags]   run operationcount operations (YCSB -t)
  relaydb bench suite [flags]   the standard suite; writes bench/results/
  relaydb bench experiment chaining [flags]
                                issue #5's chained-replication matrix
  relaydb bench failover [flags] kill -9 failover times and replication lag
                                of a 3-member set (issue #4)
  relaydb bench soak [flags]    mixed load, DDL, hostile connections and
                                periodic kill -9; 0 acked ops lost (issue #9)
Common flags: -workload a..f, -P file, -p name=value, -uri mongodb://...,
  -threads N, -target ops/s, -s, -json. -h on a command lists all flags.
`

func phaseMain(phase string, args []string, stdout, stderr io.Writer) int {
	var f phaseFlags
	fs := flag.NewFlagSet("relaydb bench "+phase, flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.bind(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitBadOptions
	}
	p, err := f.properties()
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err != nil {
		fmt.Fprintf(stderr, "relaydb bench %s: %v\n", phase, err)
		return ExitBadOptions
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	cfg := PhaseConfig{Phase: phase, Props: p, Drop: f.drop, Seed: f.seed, Stderr: stderr}
	if f.status {
		cfg.Status = stderr
	}
	if isTerminal(os.Stdout) && isTerminal(os.Stderr) {
		cfg.Progress = stderr
	}
	res, err := RunPhase(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "relaydb bench %s: %v\n", phase, err)
		return ExitError
	}
	if f.jsonOut {
		err = WriteJSON(stdout, res)
	} else {
		err = WriteText(stdout, res)
	}
	if err != nil {
		fmt.Fprintf(stderr, "relaydb bench %s: %v\n", phase, err)
		return ExitError
	}
	return ExitOK
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// PhaseConfig is one load or run against a mongodb:// target.
type PhaseConfig struct {
	Phase    string
	Props    Properties
	Drop     bool      // drop the table first
	Seed     uint64    // 0 = random
	Status   io.Writer // status lines, or nil
	Progress io.Writer // progress bar, or nil
	Stderr   io.Writer // per-operation errors
}

// RunPhase connects to mongodb.url, runs the phase and returns its result.
func RunPhase(ctx context.Context, cfg PhaseConfig) (*Result, error) {
	opts, err := optionsFrom(cfg)
	if err != nil {
		return nil, err
	}
	w, err := NewWorkload(cfg.Props)
	if err != nil {
		return nil, err
	}
	errLog := cfg.Stderr
	if errLog == nil {
		errLog = io.Discard
	}
	m, err := ConnectMongo(ctx, cfg.Props.String("mongodb.url", DefaultURI), cfg.Props, errLog)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	if cfg.Drop {
		if err := m.Drop(ctx, w.Table); err != nil {
			return nil, err
		}
	}
	return Run(ctx, w, opts, m.NewWorker, m)
}

// optionsFrom reads threadcount, target, maxexecutiontime (seconds) and
// status.interval (seconds, default 10).
func optionsFrom(cfg PhaseConfig) (Options, error) {
	p := cfg.Props
	o := Options{Phase: cfg.Phase, Status: cfg.Status, Progress: cfg.Progress, Seed: cfg.Seed}
	threads, err := p.Int64("threadcount", 1)
	if err != nil {
		return o, err
	}
	o.Threads = int(threads)
	if o.Target, err = p.Float("target", 0); err != nil {
		return o, err
	}
	maxExec, err := p.Int64("maxexecutiontime", 0)
	if err != nil {
		return o, err
	}
	o.MaxExecution = time.Duration(maxExec) * time.Second
	interval, err := p.Int64("status.interval", 10)
	if err != nil {
		return o, err
	}
	o.StatusInterval = time.Duration(interval) * time.Second
	return o, nil
}
