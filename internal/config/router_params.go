package config

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
)

// routerParameters are the --setParameter names a router takes, as
// mongos: userCacheInvalidationIntervalSecs (1..86400 seconds, default
// 30) and authenticationMechanisms (a comma-separated list, checked where
// it is applied: cmd/relaydb/mechanisms.go).
var routerParameters = map[string]bool{"userCacheInvalidationIntervalSecs": true, "authenticationMechanisms": true}

// bindRouterParameterFlags registers the router's --setParameter.
func bindRouterParameterFlags(fs *flag.FlagSet, r *Router) {
	fs.Func("setParameter", "server parameter name=value (repeatable); known: userCacheInvalidationIntervalSecs, authenticationMechanisms", func(v string) error {
		name, value, ok := strings.Cut(v, "=")
		if !ok || name == "" {
			return fmt.Errorf("--setParameter wants name=value, got %q", v)
		}
		return r.setParameter(name, value)
	})
}

// setParameter checks and records one router parameter (--setParameter
// and the configuration file's setParameter: section).
func (r *Router) setParameter(name, value string) error {
	if !routerParameters[name] {
		return fmt.Errorf("unknown server parameter %q", name)
	}
	if name == "userCacheInvalidationIntervalSecs" {
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil || n < 1 || n > 86400 {
			return fmt.Errorf("--setParameter %s=%s: want an integer from 1 to 86400", name, value)
		}
	}
	if r.Parameters == nil {
		r.Parameters = map[string]string{}
	}
	r.Parameters[name] = value
	return nil
}

// UserCacheInterval is userCacheInvalidationIntervalSecs, 0 when unset.
func (r *Router) UserCacheInterval() int64 {
	n, _ := strconv.ParseInt(r.Parameters["userCacheInvalidationIntervalSecs"], 10, 64)
	return n
}
