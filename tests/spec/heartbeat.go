package spec

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// lowHeartbeatMS is the heartbeatFrequencyMS client entities get (the Go
// driver's minimum): the unified format lets a runner lower it for
// clients that may meet a fail point, so a member marked Unknown after a
// state-change error (ShutdownInProgress, ...) is checked again at once
// instead of after the default 10 s streaming hello.
const lowHeartbeatMS = "500"

// entityBaseURI is the base URI of a file's client entities: with the low
// heartbeat unless one of them sets heartbeatFrequencyMS itself (the
// format forbids overriding it then).
func entityBaseURI(base string, specs []bson.D) string {
	for _, s := range specs {
		if len(s) != 1 || s[0].Key != "client" {
			continue
		}
		body, _ := s[0].Value.(bson.D)
		if _, ok := lookup(getDoc(body, "uriOptions"), "heartbeatFrequencyMS"); ok {
			return base
		}
	}
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + "heartbeatFrequencyMS=" + lowHeartbeatMS
}
