package main

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestLogsAreOffUnlessAsked: with no TF_LOG variable set, the provider turns its and the plugin
// libraries' logs off (Terraform would drop them); any of them set leaves every level alone.
func TestLogsAreOffUnlessAsked(t *testing.T) {
	for _, asked := range append([]string{""}, logVars...) {
		t.Run("asked by "+asked, func(t *testing.T) {
			for _, v := range logVars {
				t.Setenv(v, "")
			}
			if asked != "" {
				t.Setenv(asked, "DEBUG")
			}
			quietUnlessAsked()
			for _, v := range append(quietVars, "TF_LOG_PROVIDER") {
				want := "OFF"
				switch {
				case v == asked:
					want = "DEBUG"
				case asked != "" || v == "TF_LOG_PROVIDER": // which Terraform reads, not the provider
					want = ""
				}
				assert.Equal(t, want, os.Getenv(v), v)
			}
		})
	}
}
