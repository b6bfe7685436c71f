package changestream

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/oplog"
)

// maxScan bounds the oplog entries one Next call reads; readBatch and
// readBytes bound one fetch (entries and their bytes: at most one entry
// past readBytes, itself at most 16 MB).
const (
	maxScan   = 4096
	readBatch = 256
	readBytes = 8 << 20
)

// LabelNonResumable marks an error a driver must not resume after
// (MongoDB 4.4+ puts it on ChangeStreamFatalError).
const LabelNonResumable = "NonResumableChangeStreamError"

// Source is what a Stream reads through.
type Source struct {
	Log *oplog.Log
	// Committed returns the majority commit point: the stream reads only
	// entries at or below it.
	Committed func() bson.Timestamp
	// WaitCommitted blocks until the commit point is at or past ts, or ctx
	// ends.
	WaitCommitted func(ctx context.Context, ts bson.Timestamp) error
	// Lookup returns the current document of db.coll with _id id (nil if
	// there is none), for fullDocument: updateLookup.
	Lookup func(db, coll string, id any) (bson.D, error)
	// Post runs the stages after $changeStream on one event; a nil result
	// drops the event. Nil: no stages.
	Post func(ev bson.D) (bson.D, error)
	// SplitLarge ($changeStreamSplitLargeEvent) returns an event over
	// 16 MB as fragments (split.go).
	SplitLarge bool
}

// Stream yields the change events of a scope from the oplog, in order.
// It is tailable: Next returns false at the end of committed entries (or
// after maxScan entries) and may be called again later; after an
// invalidate it returns false for good (Finished).
type Stream struct {
	src   Source
	scope Scope
	opts  Options

	after bson.Timestamp // next entry read: ts > after (>= when incl)
	incl  bool
	skip  *Token // a resume: events at or before it are not returned
	// resume is the postBatchResumeToken: every event at or before it was
	// returned or filtered out.
	resume  Token
	scanned bson.Timestamp // newest entry whose events are all in buf or gone
	buf     []Event
	frags   []fragment // the rest of a split event, returned first
	done    bool
	err     error
}

// Open positions a stream from the options: after a resume token, at a
// start time, or after the newest visible entry.
func Open(src Source, scope Scope, opts Options) (*Stream, error) {
	s := &Stream{src: src, scope: scope, opts: opts}
	first := src.Log.First()
	switch t := resumeToken(opts); {
	case t != nil:
		s.after, s.incl, s.skip, s.resume = t.TS, true, t, *t
		if err := checkHistory(first, s.historyFloor()); err != nil {
			return nil, err
		}
	case opts.StartAtOperationTime != nil:
		ts := *opts.StartAtOperationTime
		if err := checkHistory(first, ts); err != nil {
			return nil, err
		}
		s.after, s.incl, s.resume = ts, true, HighWaterMark(prevTS(ts))
	default:
		s.after = src.Log.Visible()
		s.resume = HighWaterMark(s.after)
	}
	return s, nil
}

func resumeToken(o Options) *Token {
	if o.ResumeAfter != nil {
		return o.ResumeAfter
	}
	return o.StartAfter
}

// checkHistory fails with ChangeStreamHistoryLost when the entry at ts
// is older than the oplog's first.
func checkHistory(first, ts bson.Timestamp) error {
	if !first.IsZero() && first.After(ts) {
		return mongoerr.New(mongoerr.ChangeStreamHistoryLost,
			"Resume of change stream was not possible, as the resume point may no longer be in the oplog.")
	}
	return nil
}

// prevTS is the timestamp just before ts.
func prevTS(ts bson.Timestamp) bson.Timestamp {
	if ts.I > 0 {
		return bson.Timestamp{T: ts.T, I: ts.I - 1}
	}
	if ts.T > 0 {
		return bson.Timestamp{T: ts.T - 1, I: ^uint32(0)}
	}
	return ts
}

// nextTS is the timestamp just after ts.
func nextTS(ts bson.Timestamp) bson.Timestamp {
	if ts.I == ^uint32(0) {
		return bson.Timestamp{T: ts.T + 1}
	}
	return bson.Timestamp{T: ts.T, I: ts.I + 1}
}

// ResumeToken is the postBatchResumeToken after the events returned so far.
func (s *Stream) ResumeToken() Token { return s.resume }

// Finished reports a stream ended by an invalidate or an error.
func (s *Stream) Finished() bool { return s.done || s.err != nil }

// Err is the error that ended the stream.
func (s *Stream) Err() error { return s.err }

// Close drops buffered events.
func (s *Stream) Close() error {
	s.buf, s.done = nil, true
	return nil
}

// Wait blocks until an entry the stream has not read is committed. It
// fails once ctx is done even when such an entry exists, so a getMore
// that keeps finding entries without events ends at its await time.
func (s *Stream) Wait(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ts := s.after
	if !s.incl {
		ts = nextTS(ts)
	}
	return s.src.WaitCommitted(ctx, ts)
}

// Next returns the next event after the stages; false at the end of what
// is committed now, after maxScan entries, or when the stream ended.
func (s *Stream) Next() (bson.D, bool) {
	for budget := maxScan; s.err == nil; {
		if len(s.frags) > 0 {
			f := s.frags[0]
			s.frags = s.frags[1:]
			s.resume = f.token
			return f.doc, true
		}
		if s.done {
			break
		}
		if len(s.buf) == 0 {
			s.advanceResume()
			if budget <= 0 || !s.refill(&budget) {
				s.advanceResume()
				return nil, false
			}
			continue
		}
		ev := s.buf[0]
		s.buf = s.buf[1:]
		if s.skips(ev.Token) {
			continue
		}
		doc, err := s.finish(ev)
		if err == nil && doc != nil && s.src.SplitLarge {
			doc, s.frags, err = s.split(doc, ev.Token)
		}
		if err != nil {
			s.err = err
			return nil, false
		}
		s.resume, s.done = ev.Token, ev.Invalidate
		if doc != nil {
			return doc, true
		}
	}
	return nil, false
}

// skips reports whether a resume skips the event with token t: it is at
// or before the resume token, unless the token is one of t's fragments
// (the stream resumes with the next fragment).
func (s *Stream) skips(t Token) bool {
	if s.skip == nil || t.Compare(*s.skip) > 0 {
		return false
	}
	return !(s.skip.Fragment > 0 && t.SameEvent(*s.skip))
}

// split returns doc whole when it fits, else its fragments (without
// those a resume from one of them skips) and a nil doc.
func (s *Stream) split(doc bson.D, t Token) (bson.D, []fragment, error) {
	frags, err := splitEvent(doc, t)
	if err != nil || frags == nil {
		return doc, nil, err
	}
	if s.skip != nil && t.SameEvent(*s.skip) {
		for len(frags) > 0 && frags[0].token.Fragment <= s.skip.Fragment {
			frags = frags[1:]
		}
	}
	return nil, frags, nil
}

// advanceResume moves the resume token to the high-water mark of the
// entries scanned. REQUIRES: an empty buffer (every scanned event is
// returned or dropped).
func (s *Stream) advanceResume() {
	if !s.scanned.IsZero() && s.resume.Compare(HighWaterMark(s.scanned)) < 0 {
		s.resume = HighWaterMark(s.scanned)
	}
}

// finish looks the full document up and runs the stages.
func (s *Stream) finish(ev Event) (bson.D, error) {
	if ev.Lookup {
		doc, err := s.src.Lookup(ev.LookupNS[0], ev.LookupNS[1], ev.LookupID)
		if err != nil {
			return nil, fmt.Errorf("changestream: updateLookup: %w", err)
		}
		if doc != nil {
			ev.Doc[ev.LookupField].Value = doc
		}
	}
	if s.src.Post == nil {
		return ev.Doc, nil
	}
	out, err := s.src.Post(ev.Doc)
	if err != nil || out == nil {
		return nil, err
	}
	if id := lookupField(out, "_id"); !sameToken(id, ev.Token) {
		return nil, mongoerr.New(mongoerr.ChangeStreamFatalError,
			"Encountered an event whose _id field, which contains the resume token, was modified by the pipeline. "+
				"Modifying the _id field of an event makes it impossible to resume the stream from that point. "+
				"Only transformations that retain the unmodified _id field are allowed.").WithLabels(LabelNonResumable)
	}
	return out, nil
}

func sameToken(v any, t Token) bool {
	got, err := ParseToken(v)
	return err == nil && got == t
}
