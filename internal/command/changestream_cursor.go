package command

import (
	"context"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/changestream"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/failpoint"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// streamCursors maps a change stream's cursor to its iterator, so
// getMore can add postBatchResumeToken to the reply. An entry goes when
// the reply after the stream's close is built, or a while after the close
// (a killed or reaped cursor).
var streamCursors sync.Map // *exec.Cursor -> *streamIter

// forgetAfter is how long a closed stream's entry outlives its close.
const forgetAfter = 10 * time.Second

// streamSource is what a stream reads on this node: the oplog up to the
// majority commit point, and the current documents for updateLookup.
func streamSource(c *Ctx, post func(bson.D) (bson.D, error)) changestream.Source {
	eng := c.D.eng
	cat := eng.Catalog()
	return changestream.Source{
		Log: cat.Oplog(),
		Committed: func() bson.Timestamp {
			s, ok := cat.MajoritySnapshot()
			if !ok {
				return bson.Timestamp{}
			}
			defer s.Release()
			return s.TS()
		},
		WaitCommitted: func(ctx context.Context, ts bson.Timestamp) error {
			s, err := cat.WaitMajoritySnapshot(ctx, ts)
			if err == nil {
				s.Release()
			}
			return err
		},
		Lookup: func(db, coll string, id any) (bson.D, error) { return lookupByID(eng, db, coll, id) },
		Post:   post,
	}
}

// streamIter adapts a Stream to the cursor's iterator.
type streamIter struct {
	st   *changestream.Stream
	cur  *exec.Cursor
	last changestream.Token // token of the last event returned
	sent bool
}

func (s *streamIter) Next() (*exec.Row, bool) {
	doc, ok := s.st.Next()
	if !ok {
		if s.st.Finished() {
			// An invalidated stream ends: a cursor that is not tailable
			// closes at the end of its data, and reports id 0.
			s.cur.Tailable = false
		}
		return nil, false
	}
	s.last, s.sent = s.st.ResumeToken(), true
	return &exec.Row{Doc: doc, Pos: -1}, true
}

func (s *streamIter) Err() error { return s.st.Err() }

func (s *streamIter) Close() error {
	cur := s.cur
	time.AfterFunc(forgetAfter, func() { streamCursors.Delete(cur) })
	return s.st.Close()
}

// openStreamCursor answers the aggregate with the first batch.
func openStreamCursor(c *Ctx, st *changestream.Stream, ns string, n int) (bson.D, error) {
	it := &streamIter{st: st}
	cur := exec.NewCursor(ns, it)
	it.cur = cur
	cur.Tailable, cur.AwaitData = true, true
	streamCursors.Store(cur, it)
	reply, err := c.firstBatch(cur, n, false)
	if err != nil {
		streamCursors.Delete(cur)
		return nil, err
	}
	cur.Wait = st.Wait // only getMore waits; the first batch answers at once
	return it.withResumeToken(reply), nil
}

// changeStreamFields adds postBatchResumeToken to a getMore reply when
// cur is a change stream's.
func changeStreamFields(reply bson.D, cur *exec.Cursor) bson.D {
	v, ok := streamCursors.Load(cur)
	if !ok {
		return reply
	}
	return v.(*streamIter).withResumeToken(reply)
}

// withResumeToken adds postBatchResumeToken to the reply's cursor
// document: the stream's position, or the last event of the batch when
// the cursor held events back (a full batch).
func (s *streamIter) withResumeToken(reply bson.D) bson.D {
	if len(reply) == 0 || reply[0].Key != "cursor" {
		return reply
	}
	cd, _ := reply[0].Value.(bson.D)
	token := s.st.ResumeToken().Doc()
	if batch, _ := cd[0].Value.(bson.A); len(batch) > 0 {
		if raw, ok := batch[len(batch)-1].(bson.Raw); ok {
			if id, ok := raw.Lookup("_id").DocumentOK(); ok && !(s.sent && bson.Raw(id).Lookup("_data").StringValue() == tokenHex(s.last)) {
				token = bsonDoc(id)
			}
		}
	}
	out := append(bson.D{}, cd[0], bson.E{Key: "postBatchResumeToken", Value: token})
	reply[0].Value = append(out, cd[1:]...)
	return reply
}

func tokenHex(t changestream.Token) string {
	s, _ := t.Doc()[0].Value.(string)
	return s
}

// bsonDoc decodes a resume token document.
func bsonDoc(raw bson.Raw) bson.D {
	var d bson.D
	_ = bson.Unmarshal(raw, &d)
	return d
}

// resumableCodes are the getMore errors after which a driver resumes a
// change stream: MongoDB 4.4+ labels them ResumableChangeStreamError.
var resumableCodes = map[mongoerr.Code]bool{
	mongoerr.HostUnreachable: true, mongoerr.HostNotFound: true, mongoerr.NetworkTimeout: true,
	mongoerr.ShutdownInProgress: true, mongoerr.PrimarySteppedDown: true, mongoerr.ExceededTimeLimit: true,
	mongoerr.SocketException: true, mongoerr.NotWritablePrimary: true, mongoerr.InterruptedAtShutdown: true,
	mongoerr.InterruptedDueToReplStateChange: true, mongoerr.NotPrimaryNoSecondaryOk: true,
	mongoerr.NotPrimaryOrSecondary: true, mongoerr.StaleConfig: true, mongoerr.StaleEpoch: true,
	mongoerr.FailedToSatisfyReadPreference: true, mongoerr.RetryChangeStream: true,
}

// changeStreamError labels a change stream getMore's error
// ResumableChangeStreamError when its code is resumable.
func changeStreamError(err error, cur *exec.Cursor) error {
	if _, ok := streamCursors.Load(cur); !ok {
		return err
	}
	me := mongoerr.From(err)
	if !resumableCodes[me.Code] {
		return err
	}
	return me.WithLabels(mongoerr.LabelResumableChangeStream)
}

// getMoreFailPoint is the failGetMoreAfterCursorCheckout fail point:
// when it acts, a client's getMore fails with its data's errorCode
// (labelled as any error of a change stream's getMore). Internal requests
// (a secondary's oplog fetcher) are exempt, as for failCommand.
func getMoreFailPoint(c *Ctx, cur *exec.Cursor) error {
	if !failpoint.FailGetMoreAfterCursorCheckout.On() || internalRequest(c) {
		return nil
	}
	data, ok := failpoint.FailGetMoreAfterCursorCheckout.Check()
	if !ok {
		return nil
	}
	return changeStreamError(failpoint.GetMoreError(data), cur)
}
