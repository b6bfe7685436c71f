package shardfailover

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// classify names an operation's error as a client sees it: the server's
// code name (a write error's, else the command's, else a write concern
// error's), "timeout", "network" or the error's first words. Pure.
func classify(err error) string {
	if err == nil {
		return ""
	}
	if errors.Is(err, context.DeadlineExceeded) || mongo.IsTimeout(err) {
		return "timeout" // before the codes: a deadline mid-read is a code-less CommandError
	}
	var we mongo.WriteException
	if errors.As(err, &we) {
		if len(we.WriteErrors) > 0 {
			e := we.WriteErrors[0]
			if e.Code == 0 { // no code: the message is all there is
				return "write error without a code: " + firstWords(e.Message, 6)
			}
			return codeName(mongoerr.Code(e.Code).Name(), e.Code)
		}
		if we.WriteConcernError != nil {
			return "writeConcernError " + codeName(we.WriteConcernError.Name, we.WriteConcernError.Code)
		}
	}
	var ce mongo.CommandError
	isCmd := errors.As(err, &ce)
	switch {
	case isCmd && (ce.Code != 0 || ce.Name != ""):
		return codeName(ce.Name, int(ce.Code))
	case mongo.IsNetworkError(err):
		return "network"
	case isCmd:
		return "error without a code: " + firstWords(ce.Message, 6)
	case errors.Is(err, errNotFound):
		return "not found"
	}
	return firstWords(err.Error(), 6)
}

func codeName(name string, code int) string {
	if name != "" {
		return fmt.Sprintf("%s (%d)", name, code)
	}
	return fmt.Sprintf("code %d", code)
}

// firstWords is s's first n words, so messages that differ only in a
// host or key fall in one class.
func firstWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) > n {
		f = f[:n]
	}
	return strings.Join(f, " ")
}
