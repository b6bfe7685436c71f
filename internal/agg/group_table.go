package agg

import (
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/iterx"
)

// groupTable is a $group's hash table with its memory accounting. Past
// the group limit it spills (allowDiskUse) or fails with 292. A spill
// writes the groups sorted by key as partial records
// {k: <groupKey>, i: <_id>, a: [<partial state of each accumulator>]} and
// empties the table. The output then merges the runs and the table by
// key, folding the partial states of equal keys in run order (input
// order: see accumulator). Without a spill the groups come out in the
// order they were first seen; with one, in key order (MongoDB promises no
// order).
type groupTable struct {
	g     *groupStage
	rc    *runCtx
	byKey map[string]*group
	order []*group
	bytes int64
	spill spillSet
}

func newGroupTable(g *groupStage, rc *runCtx) *groupTable {
	return &groupTable{g: g, rc: rc, byKey: map[string]*group{}, spill: spillSet{l: rc.lim}}
}

func (t *groupTable) drain(in Iterator) error {
	for {
		d, ok, err := pull(in)
		if err != nil || !ok {
			return err
		}
		if err := t.add(d); err != nil {
			return err
		}
	}
}

func (t *groupTable) add(d bson.D) error {
	vars := t.rc.varsFor(d)
	id, err := t.g.key(d, vars)
	if err != nil {
		return err
	}
	k := groupKey(t.rc.env.Collator.KeyValue(id)) // equal under the collation: one group
	grp := t.byKey[k]
	if grp == nil {
		grp = t.g.newGroup(k, nullIfMissing(id))
		t.byKey[k] = grp
		t.order = append(t.order, grp)
		t.bytes += int64(len(k)) + valueSize(grp.id) + itemOverhead*int64(2+len(grp.accs))
	}
	grew, err := t.g.accumulate(grp, d, vars)
	if err != nil {
		return err
	}
	t.bytes += grew
	if t.bytes > t.rc.lim.groupBytes {
		return t.spillMem()
	}
	return nil
}

func (t *groupTable) spillMem() error {
	if !t.rc.lim.allowDiskUse {
		return groupLimitErr()
	}
	_, err := t.spill.write("group", iterx.Consume(t.takeSorted()))
	if err != nil {
		return err
	}
	return t.spill.compact("group", t.mergeRecords)
}

// takeSorted empties the table and returns its groups as partial records
// sorted by key.
func (t *groupTable) takeSorted() []bson.D {
	slices.SortFunc(t.order, func(a, b *group) int { return strings.Compare(a.key, b.key) })
	recs := make([]bson.D, len(t.order))
	for i, grp := range t.order {
		recs[i] = partialRecord(grp)
	}
	t.byKey, t.order, t.bytes = map[string]*group{}, nil, 0
	return recs
}

func partialRecord(grp *group) bson.D {
	parts := make(bson.A, len(grp.accs))
	for i, a := range grp.accs {
		parts[i] = a.partial()
	}
	return bson.D{
		{Key: "k", Value: bson.Binary{Data: []byte(grp.key)}},
		{Key: "i", Value: grp.id},
		{Key: "a", Value: parts},
	}
}

func recordKey(rec bson.D) string {
	switch k := rec[0].Value.(type) {
	case bson.Binary:
		return string(k.Data)
	case []byte:
		return string(k)
	}
	return ""
}

// output yields the groups' documents; it owns the spilled runs.
func (t *groupTable) output() (Iterator, error) {
	var it Iterator
	if len(t.spill.runs) == 0 {
		it = t.inMemory()
	} else {
		m, err := t.merged()
		if err != nil {
			return nil, err
		}
		it = m
	}
	if t.g.order == nil {
		return it, nil
	}
	// $bucket: one group per boundary at most, cheap to hold and order.
	docs, err := Drain(it)
	if err != nil {
		return nil, err
	}
	t.g.order(docs)
	return Slice(docs), nil
}

// inMemory yields the groups in first-seen order, letting each go once
// it is output.
func (t *groupTable) inMemory() Iterator {
	order, i := t.order, 0
	t.byKey, t.order = nil, nil
	return iterx.Func(func() (bson.D, bool, error) {
		if i >= len(order) {
			return nil, false, nil
		}
		grp := order[i]
		order[i] = nil
		i++
		d, err := t.g.output(grp)
		return d, err == nil, err
	}, nil)
}

// merged merges the runs and the table's groups by key.
func (t *groupTable) merged() (Iterator, error) {
	srcs, err := openRuns(t.spill.runs, iterx.Consume(t.takeSorted()))
	if err != nil {
		return nil, err
	}
	groups, err := t.mergeGroups(srcs)
	if err != nil {
		return nil, err
	}
	return iterx.Map(groups, t.g.output), nil
}

// mergeRecords is a mergeFunc for runs of partial records: equal keys
// fold into one record.
func (t *groupTable) mergeRecords(srcs []Iterator) (Iterator, error) {
	groups, err := t.mergeGroups(srcs)
	if err != nil {
		return nil, err
	}
	return iterx.Map(groups, func(grp *group) (bson.D, error) { return partialRecord(grp), nil }), nil
}

// mergeGroups merges runs of partial records by key into groups, folding
// the records of one key in source order.
func (t *groupTable) mergeGroups(srcs []Iterator) (iterx.Iterator[*group], error) {
	m, err := newMerger(srcs, recordKey, strings.Compare)
	if err != nil {
		return nil, err
	}
	return iterx.Func(func() (*group, bool, error) {
		first, ok, err := m.pop()
		if err != nil || !ok {
			return nil, false, err
		}
		grp := t.g.newGroup(first.key, first.doc[1].Value)
		if err := mergeRecord(grp, first.doc); err != nil {
			return nil, false, err
		}
		for {
			head, ok := m.peek()
			if !ok || head.key != grp.key {
				return grp, true, nil
			}
			next, _, err := m.pop()
			if err != nil {
				return nil, false, err
			}
			if err := mergeRecord(grp, next.doc); err != nil {
				return nil, false, err
			}
		}
	}, m.close), nil
}

func mergeRecord(grp *group, rec bson.D) error {
	parts, _ := rec[2].Value.(bson.A)
	for i, a := range grp.accs {
		if i < len(parts) {
			if _, err := a.merge(parts[i]); err != nil {
				return err
			}
		}
	}
	return nil
}
