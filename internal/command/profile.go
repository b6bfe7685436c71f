package command

import (
	"sync"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/query"
)

// The database profiler's settings (profiler.go records the operations):
// a level per database (0 off, 1 operations slower than slowms — sampled
// by sampleRate — or matching the database's filter, 2 every operation);
// slowms and sampleRate are process-wide, as mongod's.
//
// Invariant: active counts the databases whose level is above 0, so an
// unprofiled process pays one atomic load per command.
var profiler = struct {
	mu         sync.Mutex
	slowMS     int64
	sampleRate float64
	levels     map[string]int64         // REQUIRES: mu; absent: 0
	filters    map[string]profileFilter // REQUIRES: mu
	active     atomic.Int32
}{slowMS: 100, sampleRate: 1, levels: map[string]int64{}, filters: map[string]profileFilter{}}

// profileFilter is a database's profile filter: its document as set and
// the matcher compiled from it.
type profileFilter struct {
	doc bson.D
	m   *query.Matcher
}

// profile answers {was, slowms, sampleRate[, filter]} as they were, then
// applies the new settings; level -1 only reads them.
func profile(c *Ctx, p *request.Profile) (bson.D, error) {
	level, ok := bsonx.AsInt64(p.Level)
	if !ok || level < -1 || level > 2 {
		return nil, mongoerr.New(mongoerr.BadValue, "Invalid profiling level: %v", p.Level)
	}
	slow, rate, err := profileSettings(p)
	if err != nil {
		return nil, err
	}
	filter, unset, err := profileFilterOf(p.Filter)
	if err != nil {
		return nil, err
	}
	profiler.mu.Lock()
	defer profiler.mu.Unlock()
	reply := bson.D{{Key: "was", Value: int32(profiler.levels[c.DB])}, {Key: "slowms", Value: int32(profiler.slowMS)},
		{Key: "sampleRate", Value: profiler.sampleRate}}
	if f, ok := profiler.filters[c.DB]; ok {
		reply = append(reply, bson.E{Key: "filter", Value: f.doc},
			bson.E{Key: "note", Value: "When a filter expression is set, slowms and sampleRate are not used for profiling and slow-query log lines."})
	}
	if level >= 0 {
		setProfileLevel(c.DB, level)
	}
	if slow != nil {
		profiler.slowMS = *slow
	}
	if rate != nil {
		profiler.sampleRate = *rate
	}
	switch {
	case unset:
		delete(profiler.filters, c.DB)
	case filter != nil:
		profiler.filters[c.DB] = *filter
	}
	return reply, nil
}

// setProfileLevel sets db's level and the active count.
// REQUIRES: profiler.mu.
func setProfileLevel(db string, level int64) {
	was := profiler.levels[db]
	switch {
	case was == 0 && level > 0:
		profiler.active.Add(1)
	case was > 0 && level == 0:
		profiler.active.Add(-1)
	}
	if level == 0 {
		delete(profiler.levels, db)
		return
	}
	profiler.levels[db] = level
}

// profileFilterOf parses filter: a match expression, or "unset" to remove
// the database's filter.
func profileFilterOf(v any) (f *profileFilter, unset bool, err error) {
	switch t := v.(type) {
	case nil:
		return nil, false, nil
	case string:
		if t == "unset" {
			return nil, true, nil
		}
	case bson.D:
		m, err := query.Compile(t)
		if err != nil {
			return nil, false, err
		}
		return &profileFilter{doc: t, m: m}, false, nil
	}
	return nil, false, mongoerr.New(mongoerr.BadValue, "Expected an object, or the string 'unset'.")
}

// profileSettings parses slowms and sampleRate (nil: unchanged).
func profileSettings(p *request.Profile) (slow *int64, rate *float64, err error) {
	if p.SlowMS != nil {
		n, ok := bsonx.AsInt64(p.SlowMS)
		if !ok {
			return nil, nil, mongoerr.New(mongoerr.TypeMismatch, "'slowms' must be a number")
		}
		slow = &n
	}
	if p.SampleRate != nil {
		f, ok := bsonx.AsFloat64(p.SampleRate)
		if !ok || f < 0 || f > 1 {
			return nil, nil, mongoerr.New(mongoerr.BadValue, "'sampleRate' must be between 0.0 and 1.0 inclusive")
		}
		rate = &f
	}
	return slow, rate, nil
}
