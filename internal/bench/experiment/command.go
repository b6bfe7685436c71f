package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
)

// The command line every bench experiment shares: NewFlagSet and
// ParseFlags read it (-h prints the usage and exits 0, a bad flag,
// argument or value exits 2), Run runs the experiment until done or
// interrupted, WriteResults writes its files and Finish prints them.

// NewFlagSet is an experiment's flag set: errors and -h go to stderr;
// -h prints usage (when not "") before the flags.
func NewFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	if usage != "" {
		fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	}
	return fs
}

// ParseFlags parses args into fs, refuses a positional argument, then
// runs check (nil = none). It returns -1 to go on, else the exit code:
// 0 after -h, 2 after a bad flag, an argument or a failed check (printed
// on fs's output as "NAME: error").
func ParseFlags(name string, fs *flag.FlagSet, args []string, check func() error) int {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	var err error
	if fs.NArg() > 0 {
		err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
	} else if check != nil {
		err = check()
	}
	if err != nil {
		fmt.Fprintf(fs.Output(), "%s: %v\n", name, err)
		return 2
	}
	return -1
}

// Outcome is what a run leaves for Run to print.
type Outcome struct {
	Paths    []string // result files written, printed first, one a line
	Text     string   // printed after the paths
	WriteErr error    // writing the results failed
	Failed   bool     // exit 1 even without an error (a check of the run failed)
}

// Run runs execute under a context that an interrupt (Ctrl-C) cancels.
// A nil Outcome means the run left nothing to report: its error is
// printed as "NAME: error" and Run returns 1. Otherwise Run ends as
// Finish does, and returns 1 too when the Outcome Failed.
func Run(name string, stdout, stderr io.Writer, execute func(ctx context.Context) (*Outcome, error)) int {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	o, err := execute(ctx)
	if o == nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 1
	}
	if code := Finish(name, o.Paths, o.Text, err, o.WriteErr, stdout, stderr); code != 0 || !o.Failed {
		return code
	}
	return 1
}

// File is a result file beside NAME.md and NAME.json: NAME+Suffix.
type File struct{ Suffix, Body string }

// WriteResults writes dir/NAME.md (markdown), dir/NAME.json (report as
// indented JSON) and the extra files, in that order, creating dir. It
// returns the paths written, those before a failure too.
func WriteResults(dir, name, markdown string, report any, extra ...File) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("results directory: %w", err)
	}
	js, err := json.MarshalIndent(report, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode report: %w", err)
	}
	files := append([]File{{".md", markdown}, {".json", string(js) + "\n"}}, extra...)
	var paths []string
	for _, f := range files {
		p := filepath.Join(dir, name+f.Suffix)
		if err := os.WriteFile(p, []byte(f.Body), 0o644); err != nil {
			return paths, fmt.Errorf("write %s: %w", p, err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// WorkDir returns dir, or when it is "" a new temporary directory named
// prefix*; done removes that one unless keep (done is nil only with an
// error).
func WorkDir(dir, prefix string, keep bool) (_ string, done func(), err error) {
	if dir != "" {
		return dir, func() {}, nil
	}
	if dir, err = os.MkdirTemp("", prefix); err != nil {
		return "", nil, err
	}
	if keep {
		return dir, func() {}, nil
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}
