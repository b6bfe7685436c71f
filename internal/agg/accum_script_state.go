package agg

import (
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
)

// lazyScript is the Script of an operation whose Vars bring none, made
// once per compiled stage (see expr's $function).
type lazyScript struct {
	once sync.Once
	s    expr.Script
	mu   sync.Mutex
	last expr.Script // the Script the latest document brought
}

func (l *lazyScript) get(vars *expr.Vars) expr.Script {
	var s expr.Script
	if vars != nil {
		s = vars.Script
	}
	if s == nil {
		l.once.Do(func() { l.s = expr.ScriptFor(nil) })
		s = l.s
	}
	l.mu.Lock()
	l.last = s
	l.mu.Unlock()
	return s
}

// current is the Script to merge and finalize with.
func (l *lazyScript) current() expr.Script {
	l.mu.Lock()
	s := l.last
	l.mu.Unlock()
	if s != nil {
		return s
	}
	return l.get(nil)
}

// jsAcc is one group's $accumulator state. Its first error sticks: the
// group stage reports it (failure) instead of a result.
type jsAcc struct {
	spec  *jsAccSpec
	state any
	has   bool
	err   error
}

func (a *jsAcc) call(s expr.Script, body string, args bson.A) any {
	if a.err != nil {
		return nil
	}
	v, err := expr.CallScript(s, body, args)
	a.err = err
	return v
}

func (a *jsAcc) add(v any) (int64, error) {
	in, ok := v.(jsAccInput)
	if !ok || a.err != nil {
		return 0, a.err
	}
	before := valueSize(a.state)
	if !a.has {
		a.state, a.has = a.call(in.script, a.spec.init, in.initArgs), true
	}
	args := append(bson.A{a.state}, in.args...)
	a.state = a.call(in.script, a.spec.accumulate, args)
	return valueSize(a.state) - before, a.err
}

func (a *jsAcc) result() any {
	if a.spec.finalize == "" || a.err != nil {
		return a.state
	}
	return a.call(a.spec.script.current(), a.spec.finalize, bson.A{a.state})
}

func (a *jsAcc) partial() any { return a.state }

func (a *jsAcc) merge(p any) (int64, error) {
	before := valueSize(a.state)
	if !a.has {
		a.state, a.has = p, true
	} else {
		a.state = a.call(a.spec.script.current(), a.spec.merge, bson.A{a.state, p})
	}
	return valueSize(a.state) - before, a.err
}

// failure is the error a JavaScript call met, reported by group output.
// TODO(#14): $bucketAuto's output does not check it (a failed finalize
// gives null there).
func (a *jsAcc) failure() error { return a.err }
