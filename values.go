package compute

// Known region identifiers. Regions come and go, so every region field is a plain string and any
// value is accepted.
const (
	// RegionEUCDEMUC1 is EUC-DE-MUC-1.
	RegionEUCDEMUC1 = "EUC-DE-MUC-1"
	// RegionEUWGBMNC1 is EUW-GB-MNC-1.
	RegionEUWGBMNC1 = "EUW-GB-MNC-1"
	// RegionEUWNLAMS1 is EUW-NL-AMS-1.
	RegionEUWNLAMS1 = "EUW-NL-AMS-1"
	// RegionNACAFTS1 is NA-CA-FTS-1.
	RegionNACAFTS1 = "NA-CA-FTS-1"
	// RegionNACAMNZ1 is NA-CA-MNZ-1.
	RegionNACAMNZ1 = "NA-CA-MNZ-1"
	// RegionNACAPRG1 is NA-CA-PRG-1.
	RegionNACAPRG1 = "NA-CA-PRG-1"
	// RegionNORDNOKRS1 is NORD-NO-KRS-1.
	RegionNORDNOKRS1 = "NORD-NO-KRS-1"
)

// The operating system kinds of the os_type fields, which are plain strings.
const (
	OSTypeLinux   = "linux"   // a Linux system
	OSTypeWindows = "windows" // a Windows system
)
