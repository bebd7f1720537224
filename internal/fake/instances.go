package fake

import (
	"slices"
	"strings"
	"time"
)

// Instance statuses.
const (
	instanceCreating       = "creating"
	instancePendingPayment = "pending_payment"
	instanceActive         = "active"
	instanceStopping       = "stopping"
	instanceStopped        = "stopped"
	instanceStarting       = "starting"
	instanceResetting      = "resetting"
	instanceError          = "error"
	instanceDeleting       = "deleting"
)

// statusGone is the end of a delete: the instance is removed and reads respond 404.
const statusGone = "gone"

var instanceSpec = spec{collection: "instances", quota: "instances", code: codeMaxQuotaReached, product: "instance",
	notFound: func(id string) *Error { return notFound(codeInstanceNotFound, "instance %q not found", id) },
	statuses: []string{instanceCreating, instancePendingPayment, instanceActive, instanceStopping, instanceStopped,
		instanceStarting, instanceResetting, instanceError, instanceDeleting}}

// instanceBody is an instance as the API shows it, os_type and reservation_id included.
type instanceBody struct {
	ID              string     `json:"id"`
	Name            string     `json:"name"`
	Hostname        string     `json:"hostname"`
	DNSName         string     `json:"dns_name"`
	Type            string     `json:"type"`
	Region          string     `json:"region"`
	PlacementOption string     `json:"placement_option"`
	Image           Ref        `json:"image"`
	FloatingIP      *Ref       `json:"floating_ip"`
	SSHKeys         []Ref      `json:"ssh_keys"`
	SecurityGroups  []Ref      `json:"security_groups"`
	Volumes         []Ref      `json:"volumes"`
	IsProtected     bool       `json:"is_protected"`
	Status          string     `json:"status"`
	PrivateIP       nullString `json:"private_ip"`
	PublicIP        nullString `json:"public_ip"`
	DiskSize        int        `json:"disk_size"`
	OSType          string     `json:"os_type"`
	ReservationID   nullString `json:"reservation_id"`
	CreatedAt       stamp      `json:"created_at"`
	UpdatedAt       stamp      `json:"updated_at"`
}

type instance struct {
	instanceBody
	lifecycle
	// userMetadata is the create's metadata object as it was sent, what the user-metadata route
	// shows ({} when the create had none).
	userMetadata []byte
	// baseImage is the catalogue image the instance runs, also when it was built from a snapshot:
	// what decides which instance types it can run on.
	baseImage string
}

func (in *instance) flavor() string  { return in.Type }
func (in *instance) view(*state) any { return &in.instanceBody }

// uses are the resources the instance refers to (see refsTo), and its reservation.
func (in *instance) uses() []string {
	var keys []string
	for kind, refs := range in.refsTo() {
		for _, r := range refs {
			keys = append(keys, ref(kind, r.ID))
		}
	}
	if in.ReservationID != "" {
		keys = append(keys, ref("reservation", string(in.ReservationID)))
	}
	return keys
}

// refsTo are the instance's references to its image, floating IP, volumes, security groups and SSH
// keys, by kind as ref names them.
func (in *instance) refsTo() map[string][]*Ref {
	out := map[string][]*Ref{"image": {&in.Image}}
	if in.FloatingIP != nil {
		out["fip"] = []*Ref{in.FloatingIP}
	}
	for kind, refs := range map[string][]Ref{"volume": in.Volumes, "group": in.SecurityGroups, "key": in.SSHKeys} {
		for i := range refs {
			out[kind] = append(out[kind], &refs[i])
		}
	}
	return out
}

// renamed shows the new name of what an instance refers to (see refsTo) in the instances that do.
func (s *state) renamed(kind, id, name string) {
	for _, in := range referrers(&s.instances, ref(kind, id)) {
		for _, r := range in.refsTo()[kind] {
			if r.ID == id {
				r.Name = name
			}
		}
	}
}

// The limits of an instance create.
const (
	minDiskSize      = 80
	minPasswordRunes = 16
	maxStartupScript = 64 << 10
)

// beginInstance starts a transition: the instance shows status now and becomes to after d.
func (s *state) beginInstance(in *instance, now time.Time, status, to string, d time.Duration) {
	in.Status, in.UpdatedAt = status, stamp(now)
	s.instances.begin(in, now, d, to)
}

// arrive completes a transition: an instance that becomes active for the first time gets its
// addresses (its floating IP's address, once it has one, as its public IP; none when every public
// address is held); one that is gone is removed, its volumes, its floating IP and its public address
// free again (its snapshots stay).
func (in *instance) arrive(s *state, status string, at time.Time) {
	if status == statusGone {
		s.instances.remove(in.ID)
		return
	}
	in.Status, in.UpdatedAt = status, stamp(at)
	if in.Status == instanceActive && in.PrivateIP == "" {
		in.PrivateIP = nullString(s.newPrivateAddress())
		in.PublicIP = nullString(s.public.take(in.ID))
		s.refreshPublicIP(in)
	}
}

// instanceType checks that a known type is offered in a known region (02020 otherwise).
func (s *state) instanceType(id, region string) (InstanceType, *Error) {
	if !s.knownRegion(region) {
		return InstanceType{}, badRequest(codeInstanceConfigNotAllowed, "instance config not allowed: unknown region %q", region)
	}
	i := slices.IndexFunc(s.catalog.InstanceTypes, func(t InstanceType) bool { return t.ID == id })
	switch {
	case i < 0:
		return InstanceType{}, badRequest(codeInstanceConfigNotAllowed, "instance config not allowed: unknown type %q", id)
	case !slices.Contains(s.catalog.InstanceTypes[i].Regions, region):
		return InstanceType{}, badRequest(codeInstanceConfigNotAllowed,
			"instance config not allowed: type %q is not offered in %q", id, region)
	}
	return s.catalog.InstanceTypes[i], nil
}

// image is an image reference of a create request, resolved.
type image struct {
	ref     Ref
	base    string // the catalogue image behind it
	osType  string
	minDisk int // a snapshot needs a disk at least its size
}

// resolveImage finds a create's image: a catalogue image by ID or slug (a cloud image's slug may
// carry ":<version>"), or a snapshot by ID. An unknown reference is 02006, or 02015 when it has a
// snapshot's "snap-" prefix; an image not offered in the region is 02051; one the type cannot run
// is 02035.
func (s *state) resolveImage(ref, region string, typ InstanceType) (image, *Error) {
	var out image
	var regions []string
	if snap, ok := s.snapshots.find(ref); ok {
		if snap.Status != snapshotCreated {
			return out, badRequest(codeInvalidImage, "invalid image: snapshot %q is %s, not created", ref, snap.Status)
		}
		out = image{ref: Ref{ID: snap.ID, Name: snap.Name}, base: snap.baseImage, osType: snap.OSType, minDisk: snap.Size}
		regions = snap.regions
	} else {
		slug, version, hasVersion := strings.Cut(ref, ":")
		i := slices.IndexFunc(s.catalog.Images, func(im Image) bool {
			return im.ID == ref || (im.Slug != "" && im.Slug == slug)
		})
		switch {
		case i < 0 && strings.HasPrefix(ref, "snap-"):
			return out, badRequest(codeSnapshotNotFound, "snapshot %q not found", ref)
		case i < 0:
			return out, badRequest(codeInvalidImage, "invalid image %q", ref)
		}
		im := s.catalog.Images[i]
		if hasVersion && im.ID != ref && !slices.Contains(im.Versions, version) {
			return out, badRequest(codeInvalidImage, "invalid image %q: version %q of %q does not exist", ref, version, slug)
		}
		out = image{ref: Ref{ID: im.ID, Name: im.Name}, base: im.ID, osType: im.OSType}
		regions = im.Regions
	}
	if !slices.Contains(regions, region) {
		return out, badRequest(codeRegionsMismatch, "regions mismatch: image %q is available in %s, not %s",
			ref, strings.Join(regions, ", "), region)
	}
	if slices.Contains(typ.UnsupportedImages, out.base) {
		return out, badRequest(codeImageIncompatible, "the selected image %q cannot run on instance type %q", ref, typ.ID)
	}
	return out, nil
}

// allowedActions is what the actions endpoint reports for a status: the API does not say, so the
// fake allows stop and reset while active, start while stopped, and stop while starting or in
// error, as the service's own Terraform provider expects (it sends stop in those states).
func allowedActions(status string) []string {
	switch status {
	case instanceActive:
		return []string{"stop", "reset"}
	case instanceStopped:
		return []string{"start"}
	case instanceStarting, instanceError:
		return []string{"stop"}
	}
	return []string{}
}
