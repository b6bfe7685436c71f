package catalog

import (
	"errors"
	"strings"
	"testing"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

func TestValidateDBName(t *testing.T) {
	for _, c := range []struct {
		db string
		ok bool
	}{
		{"ycsb", true}, {"my-db_1", true}, {"é", true},
		{"", false}, {strings.Repeat("a", 64), false}, {strings.Repeat("a", 63), true},
		{"a/b", false}, {`a\b`, false}, {"a.b", false}, {"a b", false},
		{`a"b`, false}, {"a$b", false}, {"a\x00b", false},
	} {
		err := ValidateDBName(c.db)
		var me *mongoerr.Error
		switch {
		case c.ok && err != nil:
			t.Errorf("ValidateDBName(%q) = %v, want ok", c.db, err)
		case !c.ok && (!errors.As(err, &me) || me.Code != mongoerr.InvalidNamespace):
			t.Errorf("ValidateDBName(%q) = %v, want InvalidNamespace", c.db, err)
		}
	}
}
