package engine

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Instance statuses, from the contract.
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

// instanceBody is an instance as the contract shows it, plus the extended document's os_type and
// reservation_id.
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
	next *pending
	// userMetadata is the create's metadata object as it was sent, what the user-metadata route
	// shows ({} when the create had none).
	userMetadata []byte
	// baseImage is the catalogue image the instance runs, also when it was built from a snapshot:
	// what decides which instance types it can run on.
	baseImage string
}

// begin starts a transition: the instance shows status now and becomes to after d.
func (in *instance) begin(now time.Time, status, to string, d time.Duration) {
	in.Status = status
	in.UpdatedAt = stamp(now)
	in.next = &pending{to: to, at: now.Add(d)}
}

// settleInstance completes the instance's transition if it is due. The caller holds e.mu.
func (e *Engine) settleInstance(in *instance, now time.Time) {
	if !in.next.due(now) {
		return
	}
	to, at := in.next.to, in.next.at
	in.next = nil
	if to == statusGone {
		e.destroy(in)
		return
	}
	in.Status = to
	in.UpdatedAt = stamp(at)
	if in.Status == instanceActive && in.PrivateIP == "" {
		in.PrivateIP = nullString(e.newAddress("10.0.", "ipv4"))
		in.PublicIP = nullString(e.newAddress("172.16.", "ipv4"))
		if in.FloatingIP != nil {
			if f, ok := e.fips.get(in.FloatingIP.ID); ok {
				e.refreshPublicIP(f)
			}
		}
	}
}

// destroy removes an instance whose delete completed: its volumes are free again (a volume shows
// the instances that hold it) and its floating IP unattached. Its snapshots stay.
func (e *Engine) destroy(in *instance) {
	if in.FloatingIP != nil {
		if f, ok := e.fips.get(in.FloatingIP.ID); ok {
			f.Instance = nil
		}
	}
	e.instances.remove(in.ID)
}

func (e *Engine) instance(id string) (*instance, *apiError) {
	in, ok := e.instances.get(id)
	if !ok {
		return nil, notFound(codeInstanceNotFound, "instance %q not found", id)
	}
	return in, nil
}

func (e *Engine) getInstance(c *call) (int, any, *apiError) {
	in, err := e.instance(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{"instance": &in.instanceBody}, nil
}

func (e *Engine) listInstances(c *call) (int, any, *apiError) {
	return pageOf(c, "instances", e.instances.all(), func(in *instance) *instanceBody { return &in.instanceBody })
}

// The contract's limits on a create.
const (
	minDiskSize      = 80
	minPasswordRunes = 16
	maxStartupScript = 64 << 10
)

// billingTypes are the extended document's values of billing_type.
var billingTypes = []string{"on-demand", "prepaid-monthly", "prepaid-3-month", "prepaid-6-month", "prepaid-12-month", "reserved"}

// instanceCreate is a create request as read from its body.
type instanceCreate struct {
	name, hostname, typ, region, image, placement, floatingIP, password, reservationID string
	sshKeys, volumes, securityGroups                                                   []string
	isProtected                                                                        bool
	diskSize                                                                           int
}

// readInstanceCreate reads and checks the shape of a create body: the seed's fields and the
// extended document's optional ones.
func readInstanceCreate(raw []byte) (instanceCreate, object, *apiError) {
	var req instanceCreate
	o, err := parseBody(raw, "name", "hostname", "type", "region", "image", "placement_option", "floating_ip",
		"ssh_keys", "password", "volumes", "security_groups", "is_protected", "disk_size", "metadata",
		"billing_type", "destroy_on_shutdown", "public_ipv6", "reservation_id", "reuse_long_term_subscription")
	if err != nil {
		return req, o, err
	}
	var ignored bool
	var billing, subscription string
	for _, e := range []*apiError{
		o.str("name", &req.name), o.str("hostname", &req.hostname), o.str("type", &req.typ),
		o.str("region", &req.region), o.str("image", &req.image), o.str("placement_option", &req.placement),
		o.str("floating_ip", &req.floatingIP), o.str("password", &req.password),
		o.str("reservation_id", &req.reservationID), o.str("billing_type", &billing),
		o.str("reuse_long_term_subscription", &subscription),
		o.strs("ssh_keys", &req.sshKeys), o.strs("volumes", &req.volumes), o.strs("security_groups", &req.securityGroups),
		o.boolean("is_protected", &req.isProtected), o.boolean("destroy_on_shutdown", &ignored),
		o.boolean("public_ipv6", &ignored), o.integer("disk_size", &req.diskSize),
	} {
		if e != nil {
			return req, o, e
		}
	}
	for _, f := range []struct{ name, value string }{
		{"name", req.name}, {"hostname", req.hostname}, {"type", req.typ}, {"region", req.region}, {"image", req.image},
	} {
		if strings.TrimSpace(f.value) == "" {
			return req, o, missing(f.name)
		}
	}
	if billing != "" && !slices.Contains(billingTypes, billing) {
		return req, o, badRequest(codeBadRequest, "billing_type must be one of %s, got %q", strings.Join(billingTypes, ", "), billing)
	}
	if o.has("metadata") {
		if err := checkMetadata(o); err != nil {
			return req, o, err
		}
	}
	return req, o, nil
}

// checkMetadata checks the create's metadata: startup_script at most 64 KiB, user_data items with
// type and content.
func checkMetadata(o object) *apiError {
	md, err := o.child("metadata", "startup_script", "user_data")
	if err != nil {
		return err
	}
	var script string
	if err := md.str("startup_script", &script); err != nil {
		return err
	}
	if len(script) > maxStartupScript {
		return badRequest(codeBadRequest, "metadata.startup_script is larger than 64 KiB")
	}
	if !md.has("user_data") {
		return nil
	}
	items, err := md.array("user_data")
	if err != nil {
		return err
	}
	for i, raw := range items {
		item, err := parseObject(fmt.Sprintf("metadata.user_data[%d]", i), raw, "type", "filename", "content")
		if err != nil {
			return err
		}
		var typ, filename, content string
		for _, e := range []*apiError{item.str("type", &typ), item.str("filename", &filename), item.str("content", &content)} {
			if e != nil {
				return e
			}
		}
		if typ == "" {
			return missing(item.name("type"))
		}
		if !item.has("content") {
			return missing(item.name("content"))
		}
	}
	return nil
}

func (e *Engine) createInstance(c *call) (int, any, *apiError) {
	req, o, err := readInstanceCreate(c.body)
	if err != nil {
		return 0, nil, err
	}
	if err := checkCredentials(o, req); err != nil {
		return 0, nil, err
	}
	if req.placement == "" {
		req.placement = "AUTO"
	}
	if req.placement != "AUTO" && !slices.Contains(e.catalog.PlacementOptions, req.placement) {
		return 0, nil, badRequest(codeInvalidPlacementOption, "invalid placement option %q", req.placement)
	}
	typ, err := e.instanceType(req.typ, req.region)
	if err != nil {
		return 0, nil, err
	}
	if req.reservationID != "" {
		if err := e.reservation(req.reservationID, req.typ, req.region, ""); err != nil {
			return 0, nil, err
		}
	}
	img, err := e.resolveImage(req.image, req.region, typ)
	if err != nil {
		return 0, nil, err
	}
	disk := max(minDiskSize, img.minDisk)
	if o.has("disk_size") {
		if req.diskSize < disk {
			return 0, nil, badRequest(codeInsufficientDiskSize, "disk_size must be at least %d GiB, got %d", disk, req.diskSize)
		}
		disk = req.diskSize
	}
	keys, err := e.sshKeyRefs(req.sshKeys)
	if err != nil {
		return 0, nil, err
	}
	groups, err := e.groupRefs(req.securityGroups, req.region)
	if err != nil {
		return 0, nil, err
	}
	vols, err := e.attachableVolumes(req.volumes, req.region, "")
	if err != nil {
		return 0, nil, err
	}
	var fip *floatingIP
	if req.floatingIP != "" {
		if fip, err = e.attachableFloatingIP(req.floatingIP, req.region); err != nil {
			return 0, nil, err
		}
	}
	if err := e.quota(quotaInstances); err != nil {
		return 0, nil, err
	}
	userMetadata := []byte("{}")
	if o.has("metadata") {
		userMetadata = o.m["metadata"]
	}

	in := &instance{baseImage: img.base, userMetadata: userMetadata, instanceBody: instanceBody{
		ID: e.newID("ins"), Name: req.name, Hostname: req.hostname,
		DNSName: fmt.Sprintf("%s.%s.compute.example", req.hostname, strings.ToLower(req.region)),
		Type:    req.typ, Region: req.region, PlacementOption: req.placement, Image: img.ref,
		SSHKeys: keys, SecurityGroups: groups, Volumes: vols, IsProtected: req.isProtected,
		DiskSize: disk, OSType: img.osType, ReservationID: nullString(req.reservationID), CreatedAt: stamp(c.now),
	}}
	in.begin(c.now, instanceCreating, instanceActive, e.cfg.Durations.InstanceCreate)
	if fip != nil {
		fip.Instance = &Ref{ID: in.ID, Name: in.Name}
		in.FloatingIP = &Ref{ID: fip.ID, Name: fip.Name}
	}
	e.instances.add(in.ID, in)
	return http.StatusCreated, map[string]any{"instance": &in.instanceBody}, nil
}

// checkCredentials applies the contract's rule: ssh_keys or a password of at least 16 characters,
// never both.
func checkCredentials(o object, req instanceCreate) *apiError {
	switch {
	case o.has("ssh_keys") && o.has("password"):
		return badRequest(codeBadRequest, "only one of ssh_keys and password may be given")
	case o.has("password"):
		if utf8.RuneCountInString(req.password) < minPasswordRunes {
			return badRequest(codeWeakPassword, "weak password: at least %d characters are required", minPasswordRunes)
		}
	case len(req.sshKeys) == 0:
		return missing("ssh_keys")
	}
	return nil
}

func (e *Engine) instanceType(id, region string) (InstanceType, *apiError) {
	if !e.knownRegion(region) {
		return InstanceType{}, badRequest(codeInstanceConfigNotAllowed, "instance config not allowed: unknown region %q", region)
	}
	for _, t := range e.catalog.InstanceTypes {
		if t.ID != id {
			continue
		}
		if !slices.Contains(t.Regions, region) {
			return InstanceType{}, badRequest(codeInstanceConfigNotAllowed,
				"instance config not allowed: type %q is not offered in %q", id, region)
		}
		return t, nil
	}
	return InstanceType{}, badRequest(codeInstanceConfigNotAllowed, "instance config not allowed: unknown type %q", id)
}

// resolved is an image reference of a create request, resolved.
type resolved struct {
	ref     Ref
	base    string // the catalogue image behind it
	osType  string
	minDisk int // a snapshot needs a disk at least its size
}

// resolveImage finds a create's image: a catalogue image by ID or slug (a cloud image's slug may
// carry ":<version>"), or a snapshot by ID. An unknown reference is 02006, or 02015 when it has a
// snapshot's "snap-" prefix; an image not offered in the region is 02051; one the type cannot run
// is 02035.
func (e *Engine) resolveImage(ref, region string, typ InstanceType) (resolved, *apiError) {
	var out resolved
	var regions []string
	if snap, ok := e.snapshots.get(ref); ok {
		if snap.Status != snapshotCreated {
			return out, badRequest(codeInvalidImage, "invalid image: snapshot %q is %s, not created", ref, snap.Status)
		}
		out = resolved{ref: Ref{ID: snap.ID, Name: snap.Name}, base: snap.baseImage, osType: snap.OSType, minDisk: snap.Size}
		regions = snap.regions
	} else {
		slug, version, hasVersion := strings.Cut(ref, ":")
		i := slices.IndexFunc(e.catalog.Images, func(im Image) bool {
			return im.ID == ref || (im.Slug != "" && im.Slug == slug)
		})
		switch {
		case i < 0 && strings.HasPrefix(ref, "snap-"):
			return out, badRequest(codeSnapshotNotFound, "snapshot %q not found", ref)
		case i < 0:
			return out, badRequest(codeInvalidImage, "invalid image %q", ref)
		}
		im := e.catalog.Images[i]
		if hasVersion && im.ID != ref && !slices.Contains(im.Versions, version) {
			return out, badRequest(codeInvalidImage, "invalid image %q: version %q of %q does not exist", ref, version, slug)
		}
		out = resolved{ref: Ref{ID: im.ID, Name: im.Name}, base: im.ID, osType: im.OSType}
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

// sshKeyRefs resolves a create's ssh_keys: an ID that is not a key of the account is 02047.
func (e *Engine) sshKeyRefs(ids []string) ([]Ref, *apiError) {
	out := []Ref{}
	for _, id := range ids {
		k, ok := e.sshKeys.get(id)
		if !ok {
			return nil, badRequest(codeSSHKeyNotFound, "ssh key %q not found", id)
		}
		if !hasRef(out, id) {
			out = append(out, Ref{ID: id, Name: k.Name})
		}
	}
	return out, nil
}

func (e *Engine) groupRefs(ids []string, region string) ([]Ref, *apiError) {
	out := []Ref{}
	for _, id := range ids {
		g, ok := e.groups.get(id)
		if !ok {
			return nil, badRequest(codeSecurityGroupNotFound, "security group %q not found", id)
		}
		if g.Region != region {
			return nil, badRequest(codeRegionsMismatch, "regions mismatch: security group %q is in %s, not %s", id, g.Region, region)
		}
		if !hasRef(out, id) {
			out = append(out, Ref{ID: id, Name: g.Name})
		}
	}
	return out, nil
}

// attachableVolumes checks that each volume exists in the region and is available (created and held
// by no instance, the seed's "available"; difference D11), or is already attached to owner (an update
// that keeps it). A volume is attached to one instance at a time.
func (e *Engine) attachableVolumes(ids []string, region, owner string) ([]Ref, *apiError) {
	out := []Ref{}
	for _, id := range ids {
		v, ok := e.volumes.get(id)
		if !ok {
			return nil, badRequest(codeVolumeNotFound, "volume %q not found", id)
		}
		holder := e.holder(id)
		switch {
		case hasRef(out, id):
			return nil, badRequest(codeVolumeAlreadyAttached, "volume %q is listed twice", id)
		case v.Region != region:
			return nil, badRequest(codeRegionsMismatch, "regions mismatch: volume %q is in %s, not %s", id, v.Region, region)
		case v.locked && (owner == "" || holder != owner):
			return nil, badRequest(codeVolumeLocked, "volume %q is locked, cannot be attached or detached", id)
		case holder != "" && holder != owner:
			return nil, badRequest(codeVolumeAttachFailed, "volume %q cannot be attached: it is attached to instance %q", id, holder)
		case v.Status != storageCreated:
			return nil, badRequest(codeVolumeAttachFailed, "volume %q cannot be attached: its status is %q, not created", id, v.Status)
		}
		out = append(out, Ref{ID: id, Name: v.Name})
	}
	return out, nil
}

func (e *Engine) attachableFloatingIP(id, region string) (*floatingIP, *apiError) {
	f, ok := e.fips.get(id)
	switch {
	case !ok:
		return nil, badRequest(codeFloatingIPNotFound, "floating IP %q not found", id)
	case f.Region != region:
		return nil, badRequest(codeRegionsMismatch, "regions mismatch: floating IP %q is in %s, not %s", id, f.Region, region)
	case f.Instance != nil:
		return nil, badRequest(codeFloatingIPInUse, "floating IP %q is in use by instance %q", id, f.Instance.ID)
	}
	return f, nil
}

// listChange reads an update's security_groups or volumes: the seed's full list, or the extended
// document's {attach: id} or {detach: id} applied to the current list. An object with both keys is
// refused (the extended document leaves it open).
func listChange(o object, key string, current []Ref) ([]string, *apiError) {
	raw := strings.TrimSpace(string(o.m[key]))
	if strings.HasPrefix(raw, "[") {
		var ids []string
		if err := o.strs(key, &ids); err != nil {
			return nil, err
		}
		return ids, nil
	}
	obj, err := o.child(key, "attach", "detach")
	if err != nil {
		return nil, o.typeError(key, "array of strings or an {attach} or {detach} object")
	}
	var attach, detach string
	if err := obj.str("attach", &attach); err != nil {
		return nil, err
	}
	if err := obj.str("detach", &detach); err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(current)+1)
	for _, r := range current {
		ids = append(ids, r.ID)
	}
	switch {
	case attach != "" && detach == "":
		if !slices.Contains(ids, attach) {
			ids = append(ids, attach)
		}
		return ids, nil
	case detach != "" && attach == "":
		i := slices.Index(ids, detach)
		if i < 0 {
			code := codeVolumeDetachFailed
			if key == "security_groups" {
				code = "02031"
			}
			return nil, badRequest(code, "%s: %q is not attached", key, detach)
		}
		return slices.Delete(ids, i, i+1), nil
	}
	return nil, badRequest(codeBadRequest, "%s must carry exactly one of attach and detach", key)
}

func (e *Engine) updateInstance(c *call) (int, any, *apiError) {
	in, err := e.instance(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	o, err := parseBody(c.body, "security_groups", "volumes", "name", "is_protected", "disk_size", "reservation_id")
	if err != nil {
		return 0, nil, err
	}
	var name, reservation string
	var protected bool
	var disk int
	for _, e := range []*apiError{o.str("name", &name), o.boolean("is_protected", &protected),
		o.integer("disk_size", &disk), o.str("reservation_id", &reservation)} {
		if e != nil {
			return 0, nil, e
		}
	}
	if !o.has("security_groups") && !o.has("volumes") && !o.has("name") && !o.has("is_protected") &&
		!o.has("disk_size") && !o.has("reservation_id") {
		return 0, nil, badRequest(codeMissingParameters, "give security_groups, volumes, name, is_protected or disk_size")
	}
	if in.Status != instanceActive {
		return 0, nil, badRequest(codeUpdateRequiresActive, "only active instances can be updated; %q is %s", in.ID, in.Status)
	}
	if o.has("name") && strings.TrimSpace(name) == "" {
		return 0, nil, badRequest(codeBadRequest, "name must not be empty")
	}
	if o.has("disk_size") && disk < in.DiskSize {
		return 0, nil, badRequest(codeInsufficientDiskSize, "disk_size can only grow: %d GiB is less than the current %d GiB", disk, in.DiskSize)
	}
	if o.has("reservation_id") {
		if err := e.reservation(reservation, in.Type, in.Region, in.ID); err != nil {
			return 0, nil, err
		}
	}
	groups, vols := in.SecurityGroups, in.Volumes
	if o.has("security_groups") {
		ids, err := listChange(o, "security_groups", in.SecurityGroups)
		if err != nil {
			return 0, nil, err
		}
		if groups, err = e.groupRefs(ids, in.Region); err != nil {
			return 0, nil, err
		}
	}
	if o.has("volumes") {
		ids, err := listChange(o, "volumes", in.Volumes)
		if err != nil {
			return 0, nil, err
		}
		if vols, err = e.attachableVolumes(ids, in.Region, in.ID); err != nil {
			return 0, nil, err
		}
		for _, old := range in.Volumes {
			if v, ok := e.volumes.get(old.ID); ok && v.locked && !hasRef(vols, old.ID) {
				return 0, nil, badRequest(codeVolumeLocked, "volume %q is locked, cannot be detached", old.ID)
			}
		}
	}
	// Every check passed: apply the whole change.
	in.SecurityGroups, in.Volumes = groups, vols
	if o.has("reservation_id") {
		in.ReservationID = nullString(reservation)
	}
	if o.has("name") {
		in.Name = name
		if in.FloatingIP != nil {
			if f, ok := e.fips.get(in.FloatingIP.ID); ok && f.Instance != nil {
				f.Instance.Name = in.Name
			}
		}
	}
	if o.has("is_protected") {
		in.IsProtected = protected
	}
	if o.has("disk_size") {
		in.DiskSize = disk
	}
	in.UpdatedAt = stamp(c.now)
	return http.StatusOK, map[string]any{"instance": &in.instanceBody}, nil
}

// userMetadata shows the metadata object the instance was created with ({} when it had none). The
// extended document leaves the object's keys open; the fake's choice is the create's own object.
func (e *Engine) userMetadata(c *call) (int, any, *apiError) {
	in, err := e.instance(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, document{contentType: "application/json", body: append(slices.Clip(in.userMetadata), '\n')}, nil
}

// deleteInstance starts a destroy. The contract limits it by status with two codes and does not say
// which status gets which; the fake sends 02013 ("only active instances can be deleted") for an
// instance that never became active (creating, pending_payment) and 02069 ("only running or stopped
// instances can be deleted") for one in the middle of a transition (stopping, starting, resetting).
// Active, stopped and error instances can be deleted; a DELETE of an instance already deleting gets
// 204 again, so that a DELETE re-sent after a lost response succeeds, as DELETE is idempotent.
// Protection (02038) is checked first.
func (e *Engine) deleteInstance(c *call) (int, any, *apiError) {
	in, err := e.instance(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	if in.IsProtected {
		return 0, nil, badRequest(codeTerminationProtected, "the instance %q is termination protected", in.ID)
	}
	switch in.Status {
	case instanceDeleting:
		return http.StatusNoContent, nil, nil
	case instanceActive, instanceStopped, instanceError:
	case instanceCreating, instancePendingPayment:
		return 0, nil, badRequest(codeDeleteRequiresActive, "only active instances can be deleted; %q is %s", in.ID, in.Status)
	default:
		return 0, nil, badRequest(codeDeleteRequiresRunningOrStopped, "only running or stopped instances can be deleted; %q is %s", in.ID, in.Status)
	}
	in.begin(c.now, instanceDeleting, statusGone, e.cfg.Durations.InstanceDelete)
	return http.StatusNoContent, nil, nil
}

// allowedActions is what the actions endpoint reports for a status: the contract does not say, so
// the fake allows stop and reset while active, start while stopped, and stop while starting or in
// error, as the service's own Terraform provider expects (it sends stop in those states).
func allowedActions(st string) []string {
	switch st {
	case instanceActive:
		return []string{"stop", "reset"}
	case instanceStopped:
		return []string{"start"}
	case instanceStarting, instanceError:
		return []string{"stop"}
	}
	return []string{}
}

func (e *Engine) listActions(c *call) (int, any, *apiError) {
	in, err := e.instance(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{"actions": allowedActions(in.Status)}, nil
}

// performAction runs start, stop or reset. Start on an active instance is 02029 and on anything but
// a stopped one 02039, as the contract states; a stop or reset the current status does not allow
// (see allowedActions and the actions endpoint) is 02009.
func (e *Engine) performAction(c *call) (int, any, *apiError) {
	in, err := e.instance(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	o, err := parseBody(c.body, "action")
	if err != nil {
		return 0, nil, err
	}
	var action string
	if err := o.str("action", &action); err != nil {
		return 0, nil, err
	}
	if action == "" {
		return 0, nil, missing("action")
	}
	d := e.cfg.Durations
	switch action {
	case "start":
		switch in.Status {
		case instanceActive:
			return 0, nil, badRequest(codeInstanceAlreadyStarted, "instance %q is already started", in.ID)
		case instanceStopped:
			in.begin(c.now, instanceStarting, instanceActive, d.InstanceStart)
		default:
			return 0, nil, badRequest(codeInstanceCannotStart, "instance %q cannot be started while %s", in.ID, in.Status)
		}
	case "stop", "reset":
		if !slices.Contains(allowedActions(in.Status), action) {
			return 0, nil, badRequest(codeNotAllowed, "%s is not allowed while instance %q is %s", action, in.ID, in.Status)
		}
		if action == "stop" {
			in.begin(c.now, instanceStopping, instanceStopped, d.InstanceStop)
		} else {
			in.begin(c.now, instanceResetting, instanceActive, d.InstanceReset)
		}
	default:
		return 0, nil, badRequest(codeBadRequest, "action must be start, stop or reset, got %q", action)
	}
	return http.StatusNoContent, nil, nil
}

// SetInstanceStatus forces an instance into a status, cancelling any transition in progress, so that
// a test can reach states the API cannot (error, pending_payment) or hold one (creating). It reports
// whether the instance exists.
func (e *Engine) SetInstanceStatus(id, status string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.settle(e.now())
	in, ok := e.instances.get(id)
	if ok {
		// Completing a transition to the status applies its effects (an active instance gets its
		// addresses) without waiting for it.
		in.next = &pending{to: status, at: e.now()}
		e.settleInstance(in, e.now())
	}
	return ok
}
