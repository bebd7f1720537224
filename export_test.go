package compute

// SpacingMargin is spacingMargin, for the tests of package compute_test.
const SpacingMargin = spacingMargin
