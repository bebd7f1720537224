package main

import (
	"slices"
	"testing"

	compute "github.com/compute-sdk/compute-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cmdCase is one command line run against a fresh fake: the requests it must send, the exit code,
// and its output as a table and as JSON, compared with golden files.
type cmdCase struct {
	// name names the golden files: testdata/golden/<name>.txt (the table) and <name>.json.
	name  string
	setup func(t *testing.T, c *compute.Client)
	args  []string
	code  int
	// reqs are the requests the command sends, as "METHOD /path?query", in order.
	reqs []string
	// body is the JSON body of the one request that has one, "" when none has.
	body string
	// out points to the SDK type that the JSON output decodes into; nil for a command that prints
	// nothing on stdout.
	out any
}

// runCases runs every case twice, each on a fresh fake set up the same way: once with the default
// table, once with -o json.
func runCases(t *testing.T, cases []cmdCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			formats := []string{"table", "json"}
			if tc.out == nil {
				formats = formats[:1]
			}
			for _, format := range formats {
				h := newCLI(t)
				if tc.setup != nil {
					tc.setup(t, h.sdk())
				}
				h.srv.ResetRequests()
				args := slices.Clone(tc.args)
				if format != "table" {
					args = append(args, "-o", format)
				}
				r := h.run(args...)
				require.Equal(t, tc.code, r.code, "%v: stderr: %s", args, r.stderr)
				assert.Equal(t, tc.reqs, h.requests(), "%v", args)
				if bodies := h.bodies(); tc.body == "" {
					assert.Empty(t, bodies, "%v", args)
				} else if assert.Len(t, bodies, 1, "%v", args) {
					assert.JSONEq(t, tc.body, bodies[0], "%v", args)
				}
				if tc.code == exitOK {
					assert.Empty(t, r.stderr, "off a terminal, a success writes nothing on stderr")
				}
				switch {
				case tc.out == nil:
					assert.Empty(t, r.stdout, "%v prints nothing", args)
				case format == "json":
					golden(t, tc.name+".json", r.stdout)
					roundTrip(t, r.stdout, tc.out)
				default:
					golden(t, tc.name+".txt", r.stdout)
				}
			}
		})
	}
}
