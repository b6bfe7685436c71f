package command

import (
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// sessionCache remembers the logical sessions (lsid) clients used, for
// $listLocalSessions; endSessions forgets them. Lookups are lock-free
// (sync.Map); lastUse is refreshed at most once a second per session.
type sessionCache struct {
	m sync.Map // string(id bytes) -> *sessionEntry
}

type sessionEntry struct {
	id      bson.Binary
	lastUse time.Time
}

// touch records a command's lsid.
func (s *sessionCache) touch(cmd bson.D, now time.Time) {
	id, ok := lsidOf(cmd)
	if !ok {
		return
	}
	if v, ok := s.m.Load(string(id.Data)); ok {
		if e := v.(*sessionEntry); now.Sub(e.lastUse) < time.Second {
			return
		}
	}
	s.m.Store(string(id.Data), &sessionEntry{id: id, lastUse: now})
}

func (s *sessionCache) forget(id bson.Binary) { s.m.Delete(string(id.Data)) }

// list returns the sessions as $listLocalSessions shows them.
func (s *sessionCache) list() ([]bson.D, error) {
	var out []bson.D
	s.m.Range(func(_, v any) bool {
		e := v.(*sessionEntry)
		out = append(out, bson.D{
			{Key: "_id", Value: bson.D{{Key: "id", Value: e.id}, {Key: "uid", Value: bson.Binary{Subtype: 0, Data: make([]byte, 32)}}}},
			{Key: "lastUse", Value: bson.NewDateTimeFromTime(e.lastUse)},
		})
		return true
	})
	return out, nil
}

func lsidOf(cmd bson.D) (bson.Binary, bool) {
	for _, e := range cmd {
		if e.Key != "lsid" {
			continue
		}
		d, _ := e.Value.(bson.D)
		for _, f := range d {
			if f.Key == "id" {
				b, ok := f.Value.(bson.Binary)
				return b, ok
			}
		}
	}
	return bson.Binary{}, false
}
