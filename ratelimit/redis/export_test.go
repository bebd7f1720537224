package redis

// WaitScript, RespondedScript, WrittenScript and ThrottledScript are the scripts, for the tests that drive them
// one call at a time.
var (
	WaitScript      = waitScript
	RespondedScript = respondedScript
	WrittenScript   = writtenScript
	ThrottledScript = throttledScript
	MemberScript    = memberScript
	MarkScript      = markScript
	ScriptHeader    = scriptHeader
)

// Frame is how many slots the frame has.
const Frame = frame

// SetClock makes l's scripts use clock (microseconds, as a decimal string) instead of Redis's own.
func (l *Limiter) SetClock(clock func() string) { l.clock = clock }

// CheckMember reads memberScript's reply, refusing one the script never sends.
var CheckMember = checkMember

// SetSlotWoke makes f run each time a caller wakes for its fallback grant, until the test ends.
func SetSlotWoke(t interface{ Cleanup(func()) }, f func(*Limiter)) {
	slotWoke.Store(&f)
	t.Cleanup(func() { slotWoke.Store(nil) })
}
