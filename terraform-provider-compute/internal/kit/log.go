package kit

import (
	"context"
	"os"
	"strings"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// DebugLogging reports whether Terraform logs at the debug level or finer (TF_LOG or
// TF_LOG_PROVIDER), when the SDK's dump of each exchange is worth making.
func DebugLogging() bool {
	for _, v := range []string{os.Getenv("TF_LOG_PROVIDER"), os.Getenv("TF_LOG")} {
		switch strings.ToUpper(strings.TrimSpace(v)) {
		case "TRACE", "DEBUG", "JSON":
			return true
		}
	}
	return false
}

// DumpWriter passes the SDK's debug dump (WithDebugDump: the token and the secret fields scrubbed)
// to Terraform's log, one entry per exchange.
type DumpWriter struct {
	Ctx context.Context // carries Terraform's logger
}

// Write implements io.Writer.
func (w DumpWriter) Write(p []byte) (int, error) {
	tflog.Debug(w.Ctx, "compute API exchange\n"+strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
