package compute

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestMain runs the tests, then, on a full run (no -run, -list, -fuzz or -short) that passed, checks that every
// operation of the operation table has at least one golden wire test: a request whose method and
// path match it, checked against a literal body and response by runGolden.
func TestMain(m *testing.M) {
	code := m.Run()
	full := flag.Lookup("test.run").Value.String() == "" && flag.Lookup("test.list").Value.String() == "" &&
		flag.Lookup("test.fuzz").Value.String() == "" && !testing.Short()
	if code == 0 && full {
		if missing, err := operationsWithoutGolden(); err != nil || len(missing) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: operations without a golden wire test: %v %v\n", missing, err)
			code = 1
		}
	}
	os.Exit(code)
}

func operationsWithoutGolden() ([]string, error) {
	declared, err := declaredOperations()
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, op := range declared {
		method, path, _ := strings.Cut(op, " ")
		re := regexp.MustCompile("^" + method + " " + regexp.MustCompile(`\\\{[a-z_]+\\\}`).ReplaceAllString(regexp.QuoteMeta(path), "[^/]+") + "$")
		found := false
		goldenSeen.Range(func(k, _ any) bool {
			found = re.MatchString(k.(string))
			return !found
		})
		if !found {
			missing = append(missing, op)
		}
	}
	return missing, nil
}
