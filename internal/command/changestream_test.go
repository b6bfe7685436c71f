package command

import (
	"testing"

	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// TestChangeStreamErrorLabels: a change stream getMore's resumable error
// carries ResumableChangeStreamError; other errors and other cursors'
// errors do not.
func TestChangeStreamErrorLabels(t *testing.T) {
	stream := exec.NewCursor("db.c", exec.Empty())
	streamCursors.Store(stream, &streamIter{})
	defer streamCursors.Delete(stream)
	plain := exec.NewCursor("db.c", exec.Empty())
	tests := []struct {
		cur   *exec.Cursor
		code  mongoerr.Code
		label bool
	}{
		{stream, mongoerr.InterruptedDueToReplStateChange, true},
		{stream, mongoerr.RetryChangeStream, true},
		{stream, mongoerr.BadValue, false},
		{plain, mongoerr.InterruptedDueToReplStateChange, false},
	}
	for _, tt := range tests {
		err := changeStreamError(mongoerr.New(tt.code, "x"), tt.cur)
		got := false
		for _, l := range mongoerr.From(err).Labels {
			got = got || l == mongoerr.LabelResumableChangeStream
		}
		if got != tt.label {
			t.Errorf("code %d on stream %v: labelled %v, want %v", tt.code, tt.cur == stream, got, tt.label)
		}
	}
}
