package crashtest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
)

// opTimeout bounds one op (a w:"majority" wait included).
const opTimeout = 30 * time.Second

// historyLen is how many recent ops a Stream remembers for failure reports.
const historyLen = 12

// Stream runs generated ops one at a time and keeps the model of what was
// acknowledged. At most one op is in flight: the one whose reply did not
// come because the server was killed.
type Stream struct {
	gen      *Generator
	wc       WriteConcern
	model    *Model
	inflight Op
	history  []string // recent ops: "ack insert ..." / "in flight drop ..."
	// undo[i] is the model before the i-th most recent acknowledged op
	// (oldest first, at most historyLen): a failed check names the
	// acknowledged ops whose undoing explains what the server shows.
	undo    []*Model
	undoOps []Op

	Acked  map[string]int // acknowledged ops by kind, over the stream's life
	Sent   int            // ops sent
	Lost   int            // checks that found an acknowledged effect missing
	Unsure int            // ops in flight at a kill
}

// NewStream starts a stream with an empty model.
func NewStream(gen *Generator, wc WriteConcern) *Stream {
	return &Stream{gen: gen, wc: wc, model: NewModel(), Acked: map[string]int{}}
}

// Model is the model of every acknowledged op so far.
func (s *Stream) Model() *Model { return s.model }

// InFlight is the op whose reply did not come, or nil.
func (s *Stream) InFlight() Op { return s.inflight }

// TotalAcked is the number of acknowledged ops.
func (s *Stream) TotalAcked() int {
	n := 0
	for _, v := range s.Acked {
		n += v
	}
	return n
}

// Step draws and runs one op. killed reports whether a kill was started
// (it must turn true before the kill signal is sent). On an ack the op's
// effect goes into the model; an error after a kill makes the op the one
// in flight and returns ErrKilled; any other error is a failure.
func (s *Stream) Step(ctx context.Context, cl *mongo.Client, killed func() bool) error {
	if s.inflight != nil {
		return errors.New("crashtest: Step with an op in flight; Check first")
	}
	op := s.gen.Next(s.model)
	return s.Run(ctx, cl, op, killed)
}

// StepDDL is Step with a DDL op (Generator.NextDDL).
func (s *Stream) StepDDL(ctx context.Context, cl *mongo.Client, killed func() bool) error {
	if s.inflight != nil {
		return errors.New("crashtest: Step with an op in flight; Check first")
	}
	return s.Run(ctx, cl, s.gen.NextDDL(s.model), killed)
}

// Run runs op as Step does (for callers that draw ops themselves).
func (s *Stream) Run(ctx context.Context, cl *mongo.Client, op Op, killed func() bool) error {
	s.Sent++
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	err := op.Run(ctx, cl, s.wc)
	switch {
	case err == nil:
		s.keepUndo(op)
		op.Apply(s.model)
		s.Acked[op.Kind()]++
		s.remember("ack " + op.String())
		return nil
	case killed() && !errors.Is(err, ErrUnexpected):
		s.inflight = op
		s.Unsure++
		s.remember("in flight " + op.String())
		return ErrKilled
	}
	s.remember(fmt.Sprintf("FAILED %s: %v", op, err))
	if !errors.Is(err, ErrUnexpected) {
		s.inflight = op // its outcome is unknown until the next Check
		s.Unsure++
	}
	return fmt.Errorf("crashtest: %s failed while the server was up: %w", op, err)
}

// ErrKilled is Step's error for an op interrupted by the kill.
var ErrKilled = errors.New("crashtest: op interrupted by the kill")

// Check compares got (the restarted server's state) with the model. On a
// match the model becomes the matching candidate; otherwise Lost counts
// one, the model is rebuilt from got (so a long run can go on) and the
// error lists the differences and the recent ops.
func (s *Stream) Check(got State) error {
	m, diff := Resolve(s.model, s.inflight, got)
	inflight := s.inflight
	s.inflight = nil
	if diff == nil {
		s.model = m
		return nil
	}
	s.Lost++
	msg := "acknowledged effects missing after restart:\n  " + strings.Join(diff, "\n  ")
	if lost := s.explain(inflight, got); lost != "" {
		msg += "\n" + lost
	}
	s.model = modelOf(got)
	if inflight != nil {
		msg += "\n(in flight at the kill, allowed either way: " + inflight.String() + ")"
	}
	return fmt.Errorf("%s\nrecent ops, oldest first:\n  %s", msg, strings.Join(s.history, "\n  "))
}

func (s *Stream) keepUndo(op Op) {
	s.undo = append(s.undo, s.model.Clone())
	s.undoOps = append(s.undoOps, op)
	if len(s.undo) > historyLen {
		s.undo, s.undoOps = s.undo[1:], s.undoOps[1:]
	}
}

// explain looks for the shortest suffix of the acknowledged ops whose
// undoing gives got (with or without the in-flight op).
func (s *Stream) explain(inflight Op, got State) string {
	for k := 1; k <= len(s.undo); k++ {
		i := len(s.undo) - k
		if m, _ := Resolve(s.undo[i], nil, got); m == nil {
			continue
		}
		var names []string
		for _, op := range s.undoOps[i:] {
			names = append(names, op.String())
		}
		return fmt.Sprintf("the server holds exactly the state before the last %d acknowledged op(s), which were undone:\n  %s",
			k, strings.Join(names, "\n  "))
	}
	return ""
}

func (s *Stream) remember(line string) {
	s.history = append(s.history, line)
	if len(s.history) > historyLen {
		s.history = s.history[len(s.history)-historyLen:]
	}
}

// ResetHistory forgets the recent ops (at the start of a trial).
func (s *Stream) ResetHistory() { s.history, s.undo, s.undoOps = nil, nil, nil }
