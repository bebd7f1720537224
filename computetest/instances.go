package computetest

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	compute "github.com/compute-sdk/compute-go"
)

// statusGone is the end of a delete: the instance is removed and reads answer 404.
const statusGone = "gone"

type instance struct {
	v    compute.Instance
	next *pending
	// baseImage is the catalogue image the instance runs, also when it was built from a snapshot:
	// what decides which instance types it can run on.
	baseImage string
}

func (in *instance) wire() wireInstance {
	return wireInstance{Instance: in.v, PrivateIP: nullable(in.v.PrivateIP), PublicIP: nullable(in.v.PublicIP),
		CreatedAt: msTime(in.v.CreatedAt), UpdatedAt: msTime(in.v.UpdatedAt)}
}

// begin starts a transition: the instance shows status now and becomes to after d.
func (in *instance) begin(now time.Time, status compute.InstanceStatus, to string, d time.Duration) {
	in.v.Status = status
	in.v.UpdatedAt = now
	in.next = &pending{to: to, at: now.Add(d)}
}

// settleInstance completes the instance's transition if it is due. The caller holds s.mu.
func (s *Server) settleInstance(in *instance, now time.Time) {
	if !in.next.due(now) {
		return
	}
	to, at := in.next.to, in.next.at
	in.next = nil
	if to == statusGone {
		s.destroy(in)
		return
	}
	in.v.Status = compute.InstanceStatus(to)
	in.v.UpdatedAt = at
	if in.v.Status == compute.InstanceStatusActive && in.v.PrivateIP == "" {
		in.v.PrivateIP = s.newAddress("10.0.", compute.IPVersionIPv4)
		in.v.PublicIP = s.newAddress("172.16.", compute.IPVersionIPv4)
		if in.v.FloatingIP != nil {
			if f, ok := s.fips.get(in.v.FloatingIP.ID); ok {
				s.refreshPublicIP(f)
			}
		}
	}
}

// destroy removes an instance whose delete completed: its volumes become available again and its
// floating IP unattached. Its snapshots stay.
func (s *Server) destroy(in *instance) {
	s.setVolumes(in.v.Volumes, VolumeAvailable)
	if in.v.FloatingIP != nil {
		if f, ok := s.fips.get(in.v.FloatingIP.ID); ok {
			f.v.Instance = nil
		}
	}
	s.instances.remove(in.v.ID)
}

func (s *Server) instance(id string) (*instance, *apiError) {
	in, ok := s.instances.get(id)
	if !ok {
		return nil, notFound(compute.CodeInstanceNotFound, "instance %q not found", id)
	}
	return in, nil
}

func (s *Server) getInstance(c *call) (int, any, *apiError) {
	in, err := s.instance(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{"instance": in.wire()}, nil
}

func (s *Server) listInstances(c *call) (int, any, *apiError) {
	return pageOf(c, "instances", s.instances.all(), (*instance).wire)
}

// The contract's limits on a create.
const (
	minDiskSize      = 80
	minPasswordRunes = 16
	maxStartupScript = 64 << 10
)

func (s *Server) createInstance(c *call) (int, any, *apiError) {
	var req compute.InstanceCreateRequest
	has, err := decode(c.r, &req)
	if err != nil {
		return 0, nil, err
	}
	for _, f := range []struct{ name, value string }{
		{"name", req.Name}, {"hostname", req.Hostname}, {"type", req.Type}, {"region", req.Region}, {"image", req.Image},
	} {
		if strings.TrimSpace(f.value) == "" {
			return 0, nil, missing(f.name)
		}
	}
	if err := checkCredentials(has, &req); err != nil {
		return 0, nil, err
	}
	if req.Metadata != nil && len(req.Metadata.StartupScript) > maxStartupScript {
		return 0, nil, badRequest(compute.CodeBadRequest, "metadata.startup_script is larger than 64 KiB")
	}
	if req.PlacementOption == "" {
		req.PlacementOption = "AUTO"
	}
	if req.PlacementOption != "AUTO" && !slices.Contains(s.catalog.PlacementOptions, req.PlacementOption) {
		return 0, nil, badRequest(compute.CodeInvalidPlacementOption, "invalid placement option %q", req.PlacementOption)
	}
	typ, err := s.instanceType(req.Type, req.Region)
	if err != nil {
		return 0, nil, err
	}
	img, err := s.resolveImage(req.Image, req.Region, typ)
	if err != nil {
		return 0, nil, err
	}
	disk := max(minDiskSize, img.minDisk)
	if has["disk_size"] {
		if req.DiskSize < disk {
			return 0, nil, badRequest(compute.CodeInsufficientDiskSize, "disk_size must be at least %d GiB, got %d", disk, req.DiskSize)
		}
		disk = req.DiskSize
	}
	keys, err := s.sshKeyRefs(req.SSHKeys)
	if err != nil {
		return 0, nil, err
	}
	groups, err := s.groupRefs(req.SecurityGroups, req.Region)
	if err != nil {
		return 0, nil, err
	}
	vols, err := s.attachableVolumes(req.Volumes, req.Region, "")
	if err != nil {
		return 0, nil, err
	}
	var fip *floatingIP
	if req.FloatingIP != "" {
		if fip, err = s.attachableFloatingIP(req.FloatingIP, req.Region); err != nil {
			return 0, nil, err
		}
	}
	if m := s.cfg.limits.MaxInstances; m > 0 && len(s.instances.order) >= m {
		return 0, nil, badRequest(compute.CodeMaxQuotaReached, "max quota reached: %d instances", m)
	}

	in := &instance{baseImage: img.base, v: compute.Instance{
		ID: s.newID("ins"), Name: req.Name, Hostname: req.Hostname,
		DNSName: fmt.Sprintf("%s.%s.compute.example", req.Hostname, req.Region),
		Type:    req.Type, Region: req.Region, PlacementOption: req.PlacementOption, Image: img.ref,
		SSHKeys: keys, SecurityGroups: groups, Volumes: vols, IsProtected: req.IsProtected,
		DiskSize: disk, CreatedAt: c.now,
	}}
	in.begin(c.now, compute.InstanceStatusCreating, string(compute.InstanceStatusActive), s.cfg.durations.InstanceCreate)
	ref := compute.Ref{ID: in.v.ID, Name: in.v.Name}
	s.setVolumes(vols, VolumeInUse)
	if fip != nil {
		fip.v.Instance = &ref
		in.v.FloatingIP = &compute.Ref{ID: fip.v.ID, Name: fip.v.Name}
	}
	s.instances.add(in.v.ID, in)
	return http.StatusCreated, map[string]any{"instance": in.wire()}, nil
}

// checkCredentials applies the contract's rule: ssh_keys or a password of at least 16 characters,
// never both.
func checkCredentials(has map[string]bool, req *compute.InstanceCreateRequest) *apiError {
	switch {
	case has["ssh_keys"] && has["password"]:
		return badRequest(compute.CodeBadRequest, "only one of ssh_keys and password may be given")
	case has["password"]:
		if utf8.RuneCountInString(req.Password) < minPasswordRunes {
			return badRequest(compute.CodeWeakPassword, "weak password: at least %d characters are required", minPasswordRunes)
		}
	case len(req.SSHKeys) == 0:
		return missing("ssh_keys")
	}
	return nil
}

func (s *Server) instanceType(id, region string) (InstanceType, *apiError) {
	if !s.knownRegion(region) {
		return InstanceType{}, badRequest(compute.CodeInstanceConfigNotAllowed, "instance config not allowed: unknown region %q", region)
	}
	for _, t := range s.catalog.InstanceTypes {
		if t.ID != id {
			continue
		}
		if !slices.Contains(t.Regions, region) {
			return InstanceType{}, badRequest(compute.CodeInstanceConfigNotAllowed,
				"instance config not allowed: type %q is not offered in %q", id, region)
		}
		return t, nil
	}
	return InstanceType{}, badRequest(compute.CodeInstanceConfigNotAllowed, "instance config not allowed: unknown type %q", id)
}

// resolved is an image reference of a create request, resolved.
type resolved struct {
	ref     compute.Ref
	base    string // the catalogue image behind it
	minDisk int    // a snapshot needs a disk at least its size
}

// resolveImage finds a create's image: a catalogue image by ID or slug (a cloud image's slug may
// carry ":<version>"), or a snapshot by ID. An unknown reference is 02006, or 02015 when it has a
// snapshot's "snap-" prefix; an image not offered in the region is 02051; one the type cannot run
// is 02035.
func (s *Server) resolveImage(ref, region string, typ InstanceType) (resolved, *apiError) {
	var out resolved
	var regions []string
	if snap, ok := s.snapshots.get(ref); ok {
		out = resolved{ref: compute.Ref{ID: snap.v.ID, Name: snap.v.Name}, base: snap.baseImage, minDisk: int(snap.v.Size)}
		regions = snap.regions
	} else {
		slug, version, hasVersion := strings.Cut(ref, ":")
		i := slices.IndexFunc(s.catalog.Images, func(im compute.Image) bool {
			return im.ID == ref || (im.Slug != "" && im.Slug == slug)
		})
		switch {
		case i < 0 && strings.HasPrefix(ref, "snap-"):
			return out, badRequest(compute.CodeSnapshotNotFound, "snapshot %q not found", ref)
		case i < 0:
			return out, badRequest(compute.CodeInvalidImage, "invalid image %q", ref)
		}
		im := s.catalog.Images[i]
		if hasVersion && im.ID != ref && !slices.Contains(im.Versions, version) {
			return out, badRequest(compute.CodeInvalidImage, "invalid image %q: version %q of %q does not exist", ref, version, slug)
		}
		out = resolved{ref: compute.Ref{ID: im.ID, Name: im.Name}, base: im.ID}
		regions = im.Regions
	}
	if !slices.Contains(regions, region) {
		return out, badRequest(compute.CodeRegionsMismatch, "regions mismatch: image %q is available in %s, not %s",
			ref, strings.Join(regions, ", "), region)
	}
	if slices.Contains(typ.UnsupportedImages, out.base) {
		return out, badRequest(compute.CodeImageIncompatible, "the selected image %q cannot run on instance type %q", ref, typ.ID)
	}
	return out, nil
}

func (s *Server) sshKeyRefs(ids []string) ([]compute.Ref, *apiError) {
	out := []compute.Ref{}
	for _, id := range ids {
		i := slices.IndexFunc(s.catalog.SSHKeys, func(k SSHKey) bool { return k.ID == id })
		if i < 0 {
			return nil, badRequest(compute.CodeSSHKeyNotFound, "ssh key %q not found", id)
		}
		out = append(out, compute.Ref{ID: id, Name: s.catalog.SSHKeys[i].Name})
	}
	return out, nil
}

func (s *Server) groupRefs(ids []string, region string) ([]compute.Ref, *apiError) {
	out := []compute.Ref{}
	for _, id := range ids {
		g, ok := s.groups.get(id)
		if !ok {
			return nil, badRequest(compute.CodeSecurityGroupNotFound, "security group %q not found", id)
		}
		if g.v.Region != region {
			return nil, badRequest(compute.CodeRegionsMismatch, "regions mismatch: security group %q is in %s, not %s", id, g.v.Region, region)
		}
		if !hasRef(out, id) {
			out = append(out, compute.Ref{ID: id, Name: g.v.Name})
		}
	}
	return out, nil
}

// attachableVolumes checks that each volume exists in the region and is available, or is already
// attached to owner (an update that keeps it).
func (s *Server) attachableVolumes(ids []string, region, owner string) ([]compute.Ref, *apiError) {
	out := []compute.Ref{}
	for _, id := range ids {
		i := slices.IndexFunc(s.catalog.Volumes, func(v Volume) bool { return v.ID == id })
		if i < 0 {
			return nil, badRequest(compute.CodeVolumeNotFound, "volume %q not found", id)
		}
		v := s.catalog.Volumes[i]
		switch {
		case hasRef(out, id):
			return nil, badRequest(compute.CodeVolumeAlreadyAttached, "volume %q is listed twice", id)
		case v.Region != region:
			return nil, badRequest(compute.CodeRegionsMismatch, "regions mismatch: volume %q is in %s, not %s", id, v.Region, region)
		case v.Status == VolumeLocked:
			return nil, badRequest(compute.CodeVolumeLocked, "volume %q is locked, cannot be attached or detached", id)
		case v.Status != VolumeAvailable && !s.attachedTo(id, owner):
			return nil, badRequest(compute.CodeVolumeAttachFailed, "volume %q cannot be attached: its status is %q, not available", id, v.Status)
		}
		out = append(out, compute.Ref{ID: id, Name: v.Name})
	}
	return out, nil
}

func (s *Server) attachedTo(volume, owner string) bool {
	in, ok := s.instances.get(owner)
	return ok && hasRef(in.v.Volumes, volume)
}

// setVolumes gives the listed catalogue volumes a status.
func (s *Server) setVolumes(refs []compute.Ref, status string) {
	for _, r := range refs {
		for i := range s.catalog.Volumes {
			if s.catalog.Volumes[i].ID == r.ID {
				s.catalog.Volumes[i].Status = status
			}
		}
	}
}

func (s *Server) attachableFloatingIP(id, region string) (*floatingIP, *apiError) {
	f, ok := s.fips.get(id)
	switch {
	case !ok:
		return nil, badRequest(compute.CodeFloatingIPNotFound, "floating IP %q not found", id)
	case f.v.Region != region:
		return nil, badRequest(compute.CodeRegionsMismatch, "regions mismatch: floating IP %q is in %s, not %s", id, f.v.Region, region)
	case f.v.Instance != nil:
		return nil, badRequest(compute.CodeFloatingIPInUse, "floating IP %q is in use by instance %q", id, f.v.Instance.ID)
	}
	return f, nil
}

func (s *Server) updateInstance(c *call) (int, any, *apiError) {
	in, err := s.instance(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	var req compute.InstanceUpdateRequest
	has, err := decode(c.r, &req)
	if err != nil {
		return 0, nil, err
	}
	if !has["security_groups"] && !has["volumes"] && !has["name"] && !has["is_protected"] && !has["disk_size"] {
		return 0, nil, badRequest(compute.CodeMissingParameters, "give security_groups, volumes, name, is_protected or disk_size")
	}
	if in.v.Status != compute.InstanceStatusActive {
		return 0, nil, badRequest(compute.CodeUpdateRequiresActive, "only active instances can be updated; %q is %s", in.v.ID, in.v.Status)
	}
	if req.Name != nil && strings.TrimSpace(*req.Name) == "" {
		return 0, nil, badRequest(compute.CodeBadRequest, "name must not be empty")
	}
	if req.DiskSize != nil && *req.DiskSize < in.v.DiskSize {
		return 0, nil, badRequest(compute.CodeInsufficientDiskSize, "disk_size can only grow: %d GiB is less than the current %d GiB", *req.DiskSize, in.v.DiskSize)
	}
	groups, vols := in.v.SecurityGroups, in.v.Volumes
	if req.SecurityGroups != nil {
		if groups, err = s.groupRefs(req.SecurityGroups, in.v.Region); err != nil {
			return 0, nil, err
		}
	}
	if req.Volumes != nil {
		if vols, err = s.attachableVolumes(req.Volumes, in.v.Region, in.v.ID); err != nil {
			return 0, nil, err
		}
		for _, old := range in.v.Volumes {
			if !hasRef(vols, old.ID) && s.volumeStatus(old.ID) == VolumeLocked {
				return 0, nil, badRequest(compute.CodeVolumeLocked, "volume %q is locked, cannot be detached", old.ID)
			}
		}
	}
	// Every check passed: apply the whole change.
	s.setVolumes(in.v.Volumes, VolumeAvailable)
	s.setVolumes(vols, VolumeInUse)
	in.v.SecurityGroups, in.v.Volumes = groups, vols
	if req.Name != nil {
		in.v.Name = *req.Name
		if in.v.FloatingIP != nil {
			if f, ok := s.fips.get(in.v.FloatingIP.ID); ok {
				f.v.Instance.Name = in.v.Name
			}
		}
	}
	if req.IsProtected != nil {
		in.v.IsProtected = *req.IsProtected
	}
	if req.DiskSize != nil {
		in.v.DiskSize = *req.DiskSize
	}
	in.v.UpdatedAt = c.now
	return http.StatusOK, map[string]any{"instance": in.wire()}, nil
}

func (s *Server) volumeStatus(id string) string {
	for _, v := range s.catalog.Volumes {
		if v.ID == id {
			return v.Status
		}
	}
	return ""
}

// deleteInstance starts a destroy. The contract limits it by status with two codes and does not say
// which status gets which; the fake answers 02013 ("only active instances can be deleted") for an
// instance that never became active (creating, pending_payment) and 02069 ("only running or stopped
// instances can be deleted") for one in the middle of a transition (stopping, starting, resetting).
// Active, stopped and error instances can be deleted; a DELETE of an instance already deleting is
// answered 204 again, so that a DELETE re-sent after a lost answer succeeds, as DELETE is
// idempotent. Protection (02038) is checked first.
func (s *Server) deleteInstance(c *call) (int, any, *apiError) {
	in, err := s.instance(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	if in.v.IsProtected {
		return 0, nil, badRequest(compute.CodeTerminationProtected, "the instance %q is termination protected", in.v.ID)
	}
	switch in.v.Status {
	case compute.InstanceStatusDeleting:
		// Already being deleted: a DELETE re-sent after a lost answer gets what the first one got.
		return http.StatusNoContent, nil, nil
	case compute.InstanceStatusActive, compute.InstanceStatusStopped, compute.InstanceStatusError:
	case compute.InstanceStatusCreating, compute.InstanceStatusPendingPayment:
		return 0, nil, badRequest(compute.CodeDeleteRequiresActive, "only active instances can be deleted; %q is %s", in.v.ID, in.v.Status)
	default:
		return 0, nil, badRequest(compute.CodeDeleteRequiresRunningOrStopped, "only running or stopped instances can be deleted; %q is %s", in.v.ID, in.v.Status)
	}
	in.begin(c.now, compute.InstanceStatusDeleting, statusGone, s.cfg.durations.InstanceDelete)
	return http.StatusNoContent, nil, nil
}

// allowedActions is what the actions endpoint reports for a status.
func allowedActions(st compute.InstanceStatus) []compute.InstanceAction {
	switch st {
	case compute.InstanceStatusActive:
		return []compute.InstanceAction{compute.ActionStop, compute.ActionReset}
	case compute.InstanceStatusStopped:
		return []compute.InstanceAction{compute.ActionStart}
	}
	return []compute.InstanceAction{}
}

func (s *Server) listActions(c *call) (int, any, *apiError) {
	in, err := s.instance(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{"actions": allowedActions(in.v.Status)}, nil
}

// performAction runs start, stop or reset. Start on an active instance is 02029 and on anything but
// a stopped one 02039, as the contract states; a stop or reset the current status does not allow
// (see the actions endpoint) is 02009.
func (s *Server) performAction(c *call) (int, any, *apiError) {
	in, err := s.instance(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	var req struct {
		Action compute.InstanceAction `json:"action"`
	}
	has, err := decode(c.r, &req)
	if err != nil {
		return 0, nil, err
	}
	if !has["action"] || req.Action == "" {
		return 0, nil, missing("action")
	}
	d := s.cfg.durations
	switch req.Action {
	case compute.ActionStart:
		switch in.v.Status {
		case compute.InstanceStatusActive:
			return 0, nil, badRequest(compute.CodeInstanceAlreadyStarted, "instance %q is already started", in.v.ID)
		case compute.InstanceStatusStopped:
			in.begin(c.now, compute.InstanceStatusStarting, string(compute.InstanceStatusActive), d.InstanceStart)
		default:
			return 0, nil, badRequest(compute.CodeInstanceCannotStart, "instance %q cannot be started while %s", in.v.ID, in.v.Status)
		}
	case compute.ActionStop, compute.ActionReset:
		if in.v.Status != compute.InstanceStatusActive {
			return 0, nil, badRequest(compute.CodeNotAllowed, "%s is not allowed while instance %q is %s", req.Action, in.v.ID, in.v.Status)
		}
		if req.Action == compute.ActionStop {
			in.begin(c.now, compute.InstanceStatusStopping, string(compute.InstanceStatusStopped), d.InstanceStop)
		} else {
			in.begin(c.now, compute.InstanceStatusResetting, string(compute.InstanceStatusActive), d.InstanceReset)
		}
	default:
		return 0, nil, badRequest(compute.CodeBadRequest, "action must be start, stop or reset, got %q", req.Action)
	}
	return http.StatusNoContent, nil, nil
}

// SetInstanceStatus forces an instance into a status, cancelling any transition in progress, so that
// a test can reach states the API cannot (error, pending_payment) or hold one (creating). It reports
// whether the instance exists.
func (s *Server) SetInstanceStatus(id string, status compute.InstanceStatus) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settle(s.now())
	in, ok := s.instances.get(id)
	if ok {
		// Completing a transition to the status applies its effects (an active instance gets its
		// addresses) without waiting for it.
		in.next = &pending{to: string(status), at: s.now()}
		s.settleInstance(in, s.now())
	}
	return ok
}
