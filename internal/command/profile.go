package command

import (
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// The database profiler's settings. relaydb has no profiler: level 0
// (off) is the only level, and profile reads and sets slowms and
// sampleRate (process-wide, as mongod's), which change nothing else yet.
// Levels 1 and 2 are refused with NotImplemented (TODO(#14): write
// system.profile).
var profiler = struct {
	mu         sync.Mutex
	slowMS     int64
	sampleRate float64
}{slowMS: 100, sampleRate: 1}

// profile answers {was, slowms, sampleRate} as they were, then applies
// the new settings; level -1 only reads them.
func profile(c *Ctx, p *request.Profile) (bson.D, error) {
	level, ok := bsonx.AsInt64(p.Level)
	if !ok || level < -1 || level > 2 {
		return nil, mongoerr.New(mongoerr.BadValue, "Invalid profiling level: %v", p.Level)
	}
	if level > 0 {
		return nil, mongoerr.New(mongoerr.NotImplemented, "relaydb has no database profiler yet: only profiling level 0 is supported")
	}
	if p.Filter != nil {
		return nil, mongoerr.New(mongoerr.NotImplemented, "relaydb has no database profiler yet: profile filter is not supported")
	}
	slow, rate, err := profileSettings(p)
	if err != nil {
		return nil, err
	}
	profiler.mu.Lock()
	defer profiler.mu.Unlock()
	reply := bson.D{{Key: "was", Value: int32(0)}, {Key: "slowms", Value: int32(profiler.slowMS)},
		{Key: "sampleRate", Value: profiler.sampleRate}}
	if slow != nil {
		profiler.slowMS = *slow
	}
	if rate != nil {
		profiler.sampleRate = *rate
	}
	return reply, nil
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
