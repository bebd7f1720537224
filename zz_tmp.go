package compute

import "time"

const maxErrorString = 4096
const scrubRun = 5
const DefaultMaxWait = time.Hour
