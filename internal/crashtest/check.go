package crashtest

// Resolve checks an observed state against the model of every
// acknowledged op, with inflight (nil if none) the op that was in flight
// at the kill. It returns the model that matches got (before inflight,
// after it, or a partial application of it) and nil, or, if none matches,
// the differences from the acknowledged model.
func Resolve(acked *Model, inflight Op, got State) (*Model, []string) {
	cands := []*Model{acked}
	if inflight != nil {
		after := acked.Clone()
		inflight.Apply(after)
		cands = append(cands, after)
		cands = append(cands, inflight.Partial(acked, got)...)
	}
	for _, m := range cands {
		if Equal(m.State(), got) {
			return m, nil
		}
	}
	return nil, Diff(acked.State(), got, 20)
}
