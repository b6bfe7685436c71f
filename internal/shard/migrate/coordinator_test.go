package migrate

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// run is one migration under test: the coordinator and the history that
// checkInvariants reads.
type run struct {
	c   *Coordinator
	log []entry // events and the actions they caused, in order
}

// entry is one event (act nil) or one action.
type entry struct {
	ev  Event
	act *Action
}

func (r *run) record(ev *Event, acts []Action) {
	if ev != nil {
		r.log = append(r.log, entry{ev: *ev})
	}
	for i := range acts {
		r.log = append(r.log, entry{act: &acts[i]})
	}
}

// TestScripts runs the golden scripts under testdata (go test -rewrite).
func TestScripts(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var r *run
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "new":
				c, acts := New(Options{CatchUpBytes: 1024, CloneTimeout: 10 * time.Second, PollEvery: 100 * time.Millisecond}, epoch)
				r = &run{c: c}
				r.record(nil, acts)
				return render(c, acts)
			case "ev":
				ev, at := parseEvent(t, d)
				acts := r.c.Step(ev, epoch.Add(at))
				r.record(&ev, acts)
				if err := checkInvariants(r); err != nil {
					t.Fatalf("%s: %v", d.Pos, err)
				}
				return render(r.c, acts)
			}
			t.Fatalf("%s: unknown command %s", d.Pos, d.Cmd)
			return ""
		})
	})
}

var eventNames = map[string]EventKind{
	"persisted": Persisted, "status": RecipientStatus, "recipient-failed": RecipientFailed,
	"entered": SectionEntered, "recipient-committed": RecipientCommitted, "config-committed": ConfigCommitted,
	"config-refused": ConfigRefused, "config-unknown": ConfigUnknown, "fenced": Fenced, "placement": Placement,
	"stepped-down": SteppedDown,
}

func parseEvent(t *testing.T, d *datadriven.TestData) (Event, time.Duration) {
	kind, ok := eventNames[d.CmdArgs[0].Key]
	if !ok {
		t.Fatalf("%s: unknown event %s", d.Pos, d.CmdArgs[0].Key)
	}
	ev := Event{Kind: kind}
	var at time.Duration
	for _, a := range d.CmdArgs[1:] {
		v := a.Vals[0]
		switch a.Key {
		case "cloned":
			ev.Cloned = v == "true"
		case "pending":
			n, _ := strconv.ParseInt(v, 10, 64)
			ev.PendingBytes = n
		case "owner":
			ev.Owner = v
		case "err":
			ev.Err = v
		case "t":
			at, _ = time.ParseDuration(v)
		default:
			t.Fatalf("%s: unknown argument %s", d.Pos, a.Key)
		}
	}
	return ev, at
}

func render(c *Coordinator, acts []Action) string {
	var b strings.Builder
	fmt.Fprintf(&b, "phase=%s decision=%s\n", c.Phase(), c.Decision())
	for _, a := range acts {
		fmt.Fprintf(&b, "-> %s", a.Kind)
		if a.After > 0 {
			fmt.Fprintf(&b, " after=%v", a.After)
		}
		if a.Kind == PersistDecision || a.Kind == Finish {
			fmt.Fprintf(&b, " %s", a.Decision)
		}
		if a.Reason != "" {
			fmt.Fprintf(&b, " (%s)", a.Reason)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// checkInvariants checks the package invariants on a run's history: the
// commit is asked for only after the section was entered and the
// recipient confirmed commit start (each an event answering our action);
// nothing is released or deleted before the decision is persisted; one
// decision, one finish.
func checkInvariants(r *run) error {
	var askedSection, held, askedCommitStart, confirmed, askedDecision, persisted bool
	finishes, decisions := 0, map[Decision]bool{}
	for _, e := range r.log {
		if e.act == nil {
			switch e.ev.Kind {
			case SectionEntered:
				held = held || askedSection
			case RecipientCommitted:
				confirmed = confirmed || askedCommitStart
			case Persisted:
				persisted = persisted || askedDecision
			}
			continue
		}
		switch a := e.act; a.Kind {
		case EnterCriticalSection:
			askedSection = true
		case RecipientCommitStart:
			askedCommitStart = true
		case CommitOnConfig:
			if !held || !confirmed {
				return fmt.Errorf("commit on config without the critical section (%v) or the recipient's commit start (%v)", held, confirmed)
			}
		case PersistDecision:
			askedDecision = true
			decisions[a.Decision] = true
		case ReleaseCriticalSection, DeleteDonorRange, DeleteRecipientRange:
			if !persisted {
				return fmt.Errorf("%s before the decision was persisted", a.Kind)
			}
		case Finish:
			finishes++
			decisions[a.Decision] = true
		}
	}
	if len(decisions) > 1 {
		return fmt.Errorf("more than one decision: %v", decisions)
	}
	if finishes > 1 {
		return fmt.Errorf("finished %d times", finishes)
	}
	return nil
}

// TestRandomEvents feeds random events (any event in any phase, as late
// and duplicated replies arrive) and checks the invariants each step.
// The config servers are modelled: a commit request, once sent, is
// committed or refused once, and a fence refuses one still in flight;
// the decision must agree with them.
func TestRandomEvents(t *testing.T) {
	kinds := []EventKind{Persisted, RecipientStatus, RecipientFailed, SectionEntered, RecipientCommitted,
		ConfigCommitted, ConfigRefused, ConfigUnknown, Fenced, Placement, SteppedDown}
	for seed := uint64(0); seed < 2000; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		c, acts := New(Options{CatchUpBytes: 10, CloneTimeout: time.Second, PollEvery: time.Millisecond}, epoch)
		r := &run{c: c}
		r.record(nil, acts)
		cfg := configModel{}
		for i := 0; i < 80 && c.Phase() != Done; i++ {
			ev := Event{Kind: kinds[rng.IntN(len(kinds))], Cloned: rng.IntN(2) == 0, PendingBytes: int64(rng.IntN(20))}
			if !cfg.admit(&ev) {
				continue
			}
			acts := c.Step(ev, epoch.Add(time.Duration(i)*50*time.Millisecond))
			r.record(&ev, acts)
			cfg.observe(acts)
			if err := checkInvariants(r); err != nil {
				t.Fatalf("seed %d step %d: %v", seed, i, err)
			}
		}
		if (cfg.state == "committed" && c.Decision() == Aborted) || (cfg.state != "committed" && c.Decision() == Committed) {
			t.Fatalf("seed %d: the config servers say %q, the migration decided %s", seed, cfg.state, c.Decision())
		}
	}
}

// configModel is the config servers as the random test sees them:
// "" (no commit sent), "inflight", "committed" or "refused".
type configModel struct{ state string }

// observe notes a commit request the coordinator sent.
func (m *configModel) observe(acts []Action) {
	for _, a := range acts {
		if a.Kind == CommitOnConfig && m.state == "" {
			m.state = "inflight"
		}
	}
}

// admit shapes ev to agree with the model (false: skip it).
func (m *configModel) admit(ev *Event) bool {
	switch ev.Kind {
	case ConfigCommitted, ConfigRefused:
		want := map[EventKind]string{ConfigCommitted: "committed", ConfigRefused: "refused"}[ev.Kind]
		if m.state == "inflight" {
			m.state = want
		}
		return m.state == want
	case Fenced:
		if m.state == "inflight" {
			m.state = "refused"
		}
	case Placement:
		ev.Owner = "donor"
		if m.state == "committed" {
			ev.Owner = "recipient"
		}
	}
	return true
}
