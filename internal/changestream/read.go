package changestream

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/oplog"
)

// refill reads committed entries after the position until one yields an
// event for the scope, the committed entries run out, or the budget does.
// It reports whether events were buffered.
func (s *Stream) refill(budget *int) bool {
	limit := s.src.Committed()
	for *budget > 0 {
		if limit.Before(s.after) || (!s.incl && limit == s.after) {
			return false
		}
		if err := checkHistory(s.src.Log.First(), s.historyFloor()); err != nil && s.incl {
			s.err = err
			return false
		}
		raws, err := s.src.Log.ReadRawBytes(s.after, s.incl, readBatch, readBytes)
		if err != nil {
			s.err = err
			return false
		}
		if len(raws) == 0 {
			return false
		}
		if err := s.checkResumePoint(raws[0]); err != nil {
			s.err = err
			return false
		}
		for _, raw := range raws {
			buffered, past := s.entry(raw, limit)
			if buffered || past || s.err != nil {
				return buffered && s.err == nil
			}
			*budget--
		}
	}
	return false
}

// entry buffers the events of one raw entry at or below limit and moves
// the position past it; it reports whether it buffered any, and past when
// the entry is newer than limit (left unread).
func (s *Stream) entry(raw []byte, limit bson.Timestamp) (buffered, past bool) {
	e, err := oplog.Unmarshal(raw)
	if err != nil {
		s.err = err
		return false, false
	}
	if e.TS.After(limit) {
		return false, true
	}
	evs, err := Events(e, s.scope, s.opts)
	if err != nil {
		s.err = err
		return false, false
	}
	s.after, s.incl, s.scanned = e.TS, false, e.TS
	s.buf = append(s.buf, evs...)
	return len(evs) > 0, false
}

// checkResumePoint fails with ChangeStreamFatalError when a stream resumed
// from an event's token does not find that event's entry first: the token
// is from another oplog (another replica set, or a rolled-back write).
func (s *Stream) checkResumePoint(first []byte) error {
	if !s.incl || s.skip == nil || s.skip.IsHighWaterMark() || s.opts.FromRouter {
		return nil
	}
	t, i, _ := bson.Raw(first).Lookup("ts").TimestampOK()
	if (bson.Timestamp{T: t, I: i}) == s.skip.TS {
		return nil
	}
	return mongoerr.New(mongoerr.ChangeStreamFatalError,
		"cannot resume stream; the resume token was not found. %s", s.skip.hex()).WithLabels(LabelNonResumable)
}

// historyFloor is the oldest entry the stream still needs: the one at its
// position, or after it when it resumes from a high-water mark there.
func (s *Stream) historyFloor() bson.Timestamp {
	if s.skip != nil && s.skip.IsHighWaterMark() && s.after == s.skip.TS {
		return nextTS(s.after)
	}
	return s.after
}
