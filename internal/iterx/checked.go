package iterx

import "github.com/relaydb/relaydb/internal/invariants"

// Checked returns it, wrapped in builds with -tags invariants in a checker
// of the contract's rules that fails through invariants.Violated when its
// implementation breaks one: an item after Close, an item after the end
// (unless tailable), an Err that changes once reported (a tailable
// iterator may still fail after an end without error). Each
// layer wraps the iterators it hands to the next (catalog's scans, exec's
// Find, agg's Run); a normal build compiles the check away and returns it
// itself.
func Checked[T any](it Iterator[T], tailable bool) Iterator[T] {
	if !invariants.Enabled {
		return it
	}
	return &checked[T]{in: it, tailable: tailable}
}

type checked[T any] struct {
	in       Iterator[T]
	tailable bool
	ended    bool  // Next has returned false
	err      error // Err at the first end
	closed   bool
}

func (c *checked[T]) Next() (T, bool) {
	v, ok := c.in.Next()
	if ok {
		if c.closed {
			invariants.Violated("iterx: %T yielded an item after Close", c.in)
		}
		if c.ended && (c.err != nil || !c.tailable) {
			invariants.Violated("iterx: %T yielded an item after it ended (err %v)", c.in, c.err)
		}
		return v, true
	}
	// Compared by nil-ness: an error value need not be comparable.
	err := c.in.Err()
	if c.ended && (err == nil) != (c.err == nil) && (c.err != nil || !c.tailable) {
		invariants.Violated("iterx: %T's Err changed from %v to %v", c.in, c.err, err)
	}
	c.ended, c.err = true, err
	return v, false
}

func (c *checked[T]) Err() error { return c.in.Err() }

func (c *checked[T]) Close() error {
	c.closed = true
	return c.in.Close()
}

// Unwrap returns the checked iterator, for code that looks for a
// particular implementation under its wrappers.
func (c *checked[T]) Unwrap() Iterator[T] { return c.in }
