package redis

// WaitScript is waitScript, for the tests that drive it one grant at a time.
var WaitScript = waitScript
