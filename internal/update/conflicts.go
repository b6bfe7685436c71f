package update

import (
	"strings"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// conflicts records the paths an update touches, to reject updates where
// one path is a prefix of another (MongoDB's ConflictingUpdateOperators).
type conflicts struct {
	paths [][]string
}

func (c *conflicts) add(o *op) error {
	if err := c.addPath(o.path); err != nil {
		return err
	}
	if o.kind == opRename {
		return c.addPath(o.to)
	}
	return nil
}

func (c *conflicts) addPath(p []string) error {
	for _, q := range c.paths {
		n := min(len(p), len(q))
		if isPrefix(p[:n], q) && isPrefix(q[:n], p) {
			return mongoerr.New(mongoerr.ConflictingUpdateOperators,
				"Updating the path '%s' would create a conflict at '%s'",
				strings.Join(p, "."), strings.Join(p[:n], "."))
		}
	}
	c.paths = append(c.paths, p)
	return nil
}

// isPrefix reports whether p is a (non-strict) prefix of q.
func isPrefix(p, q []string) bool {
	if len(p) > len(q) {
		return false
	}
	for i := range p {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}
