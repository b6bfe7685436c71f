// Package iterx is the one iterator contract of relaydb's read path:
// catalog scans yield raw BSON (catalog.DocIterator = Iterator[[]byte]),
// exec's plan stages yield rows (exec.Iterator = Iterator[*exec.Row]) and
// agg's pipeline stages yield documents (agg.Iterator = Iterator[bson.D]).
// One shape means a layer wraps the layer below with Map instead of a
// hand-written adapter per pair.
//
// It is a leaf package (it imports only the standard library and
// internal/invariants) so that catalog, exec and the pure agg can all
// implement it without agg importing catalog (and through it Pebble), and
// without catalog importing anything above it. Checked enforces the rules
// below in builds with -tags invariants.
//
// It is a pull iterator with an explicit end, an error and a Close, like
// Pebble's iterators and database/sql's Rows, rather than the standard
// library's iter.Seq: the iterators hold resources (Pebble snapshots,
// spill files, cursors kept across getMore) that must be released whether
// or not the consumer reads to the end, and a cursor reads a batch, returns
// to the client and resumes later.
package iterx

// Iterator yields a sequence of T. The rules every implementation keeps:
//
//   - Next returns the next item and true, or the zero T and false at the
//     end of the sequence or on failure. Calling Next again after it
//     returned false is allowed and returns false again, except for a
//     tailable iterator (the oplog's, under a tailable cursor), which may
//     yield items that became visible since. A wrapper that may sit over a
//     tailable iterator passes Next through to its input rather than
//     remembering the end (Map does; Func, for stages that never are,
//     remembers it).
//   - Err reports why Next returned false: nil at the end of the
//     sequence, the error on failure. Check it once Next returns false; it
//     is sticky (a failed iterator stays failed). A wrapper reports its
//     input's error as its own.
//   - Close releases the iterator's resources (Pebble iterators and
//     snapshots, spill files) and closes its input: whoever opened or was
//     handed an iterator closes it, whether or not it read to the end. A
//     stage that takes an input owns it. Close may be called more than
//     once, and Next after Close returns false (tailable or not). Close
//     returns an error only when releasing a resource failed; errors of
//     the sequence itself come from Err.
//   - An item belongs to the caller once Next returns it: the iterator
//     never reuses or changes it, so it stays valid after the next Next and
//     after Close (a cursor keeps a batch's documents until the reply is
//     written). Items are read-only unless the layer says otherwise: they
//     may be shared (an exec point lookup's bytes are the storage document
//     cache's; Slice returns its input's elements). exec's *Row is the
//     exception: each Next returns a fresh Row whose decoded Doc and Pos
//     the consumer fills in.
//   - Next is on the hot path: an implementation allocates no more per
//     item than the item itself needs.
type Iterator[T any] interface {
	Next() (item T, ok bool)
	Err() error
	Close() error
}

// Drain reads every item of it, then closes it.
func Drain[T any](it Iterator[T]) ([]T, error) {
	defer it.Close()
	var out []T
	for {
		v, ok := it.Next()
		if !ok {
			if err := it.Err(); err != nil {
				return nil, err
			}
			return out, nil
		}
		out = append(out, v)
	}
}

// Slice yields items in order. It does not change items, so the caller
// may keep using the slice.
func Slice[T any](items []T) Iterator[T] { return &sliceIter[T]{items: items} }

// Consume yields items in order and clears each slot as it yields it, so
// the iterator does not keep yielded items alive: the caller hands items
// over.
func Consume[T any](items []T) Iterator[T] { return &sliceIter[T]{items: items, clear: true} }

// Empty yields nothing.
func Empty[T any]() Iterator[T] { return &sliceIter[T]{} }

type sliceIter[T any] struct {
	items []T
	i     int
	clear bool
}

func (s *sliceIter[T]) Next() (T, bool) {
	var zero T
	if s.i >= len(s.items) {
		return zero, false
	}
	v := s.items[s.i]
	if s.clear {
		s.items[s.i] = zero
	}
	s.i++
	return v, true
}

func (s *sliceIter[T]) Err() error { return nil }

func (s *sliceIter[T]) Close() error {
	s.items, s.i = nil, 0
	return nil
}

// Func builds an iterator from a step function: next returns the next
// item and true, false at the end, or an error. Once next has reported the
// end or an error it is not called again (a Func iterator is not
// tailable). close, if not nil, runs once, at the first Close.
func Func[T any](next func() (T, bool, error), close func() error) Iterator[T] {
	return &funcIter[T]{next: next, close: close}
}

type funcIter[T any] struct {
	next  func() (T, bool, error)
	close func() error
	err   error
	done  bool
}

func (f *funcIter[T]) Next() (T, bool) {
	var zero T
	if f.done {
		return zero, false
	}
	v, ok, err := f.next()
	if err != nil || !ok {
		f.done, f.err = true, err
		return zero, false
	}
	return v, true
}

func (f *funcIter[T]) Err() error { return f.err }

func (f *funcIter[T]) Close() error {
	f.done = true
	if c := f.close; c != nil {
		f.close = nil
		return c()
	}
	return nil
}

// Map yields fn of each item of in; an error from fn ends the sequence
// with that error. It passes the end of in through (a Map over a tailable
// iterator stays tailable) and closes in when closed.
func Map[T, U any](in Iterator[T], fn func(T) (U, error)) Iterator[U] {
	return &mapIter[T, U]{in: in, fn: fn}
}

type mapIter[T, U any] struct {
	in  Iterator[T]
	fn  func(T) (U, error)
	err error
}

func (m *mapIter[T, U]) Next() (U, bool) {
	var zero U
	if m.err != nil {
		return zero, false
	}
	v, ok := m.in.Next()
	if !ok {
		return zero, false
	}
	u, err := m.fn(v)
	if err != nil {
		m.err = err
		return zero, false
	}
	return u, true
}

func (m *mapIter[T, U]) Err() error {
	if m.err != nil {
		return m.err
	}
	return m.in.Err()
}

func (m *mapIter[T, U]) Close() error { return m.in.Close() }
