package fake

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"
)

// instanceCreate is the body of POST /instances, with the optional fields the service's
// description adds (billing_type and the four after it).
type instanceCreate struct {
	Name                      string         `json:"name" fake:"required"`
	Hostname                  string         `json:"hostname" fake:"required"`
	Type                      string         `json:"type" fake:"required"`
	Region                    string         `json:"region" fake:"required"`
	Image                     string         `json:"image" fake:"required"`
	PlacementOption           string         `json:"placement_option"`
	FloatingIP                string         `json:"floating_ip"`
	SSHKeys                   []string       `json:"ssh_keys"`
	Password                  *string        `json:"password"`
	Volumes                   []string       `json:"volumes"`
	SecurityGroups            []string       `json:"security_groups"`
	IsProtected               bool           `json:"is_protected"`
	DiskSize                  *int           `json:"disk_size"`
	Metadata                  createMetadata `json:"metadata"`
	BillingType               string         `json:"billing_type"`
	DestroyOnShutdown         bool           `json:"destroy_on_shutdown"`
	PublicIPv6                bool           `json:"public_ipv6"`
	ReservationID             string         `json:"reservation_id"`
	ReuseLongTermSubscription string         `json:"reuse_long_term_subscription"`
}

// billingTypes are the values of billing_type.
var billingTypes = []string{"on-demand", "prepaid-monthly", "prepaid-3-month", "prepaid-6-month", "prepaid-12-month", "reserved"}

// check applies the rules of the body alone: billing_type's values, and ssh_keys or a password of
// at least 16 characters, never both.
func (r *instanceCreate) check() *Error {
	switch {
	case r.BillingType != "" && !slices.Contains(billingTypes, r.BillingType):
		return badRequest(codeBadRequest, "billing_type must be one of %s, got %q", strings.Join(billingTypes, ", "), r.BillingType)
	case r.SSHKeys != nil && r.Password != nil:
		return badRequest(codeBadRequest, "only one of ssh_keys and password may be given")
	case r.Password != nil && utf8.RuneCountInString(*r.Password) < minPasswordRunes:
		return badRequest(codeWeakPassword, "weak password: at least %d characters are required", minPasswordRunes)
	case r.Password == nil && len(r.SSHKeys) == 0:
		return missing("ssh_keys")
	}
	return nil
}

// createMetadata is the create's metadata object: checked as instanceMetadata, kept as sent.
type createMetadata struct{ raw json.RawMessage }

// instanceMetadata is what the create's metadata may hold.
type instanceMetadata struct {
	StartupScript string         `json:"startup_script"`
	UserData      []userDataItem `json:"user_data"`
}

type userDataItem struct {
	Type     string  `json:"type" fake:"required"`
	Filename string  `json:"filename"`
	Content  *string `json:"content" fake:"required"`
}

func (md *createMetadata) decodeJSON(name string, raw json.RawMessage) *Error {
	if isNull(raw) {
		return nil
	}
	var m instanceMetadata
	if err := decodeObject(name, raw, reflect.ValueOf(&m).Elem()); err != nil {
		return err
	}
	if len(m.StartupScript) > maxStartupScript {
		return badRequest(codeBadRequest, "metadata.startup_script is larger than 64 KiB")
	}
	md.raw = raw
	return nil
}

// createInstance checks the references of the create (the type in the region, the reservation, the
// image, the SSH keys, the security groups, the volumes and the floating IP, in that order) and the
// quota, and makes an instance that is creating (until Durations.InstanceCreate has passed), its
// floating IP attached.
func createInstance(s *state, c call, r *instanceCreate) (*instanceBody, *Error) {
	placement := cmp.Or(r.PlacementOption, "AUTO")
	if placement != "AUTO" && !slices.Contains(s.catalog.PlacementOptions, placement) {
		return nil, badRequest(codeInvalidPlacementOption, "invalid placement option %q", placement)
	}
	typ, err := s.instanceType(r.Type, r.Region)
	if err != nil {
		return nil, err
	}
	if r.ReservationID != "" {
		if err := s.checkReservation(r.ReservationID, r.Type, r.Region, ""); err != nil {
			return nil, err
		}
	}
	img, err := s.resolveImage(r.Image, r.Region, typ)
	if err != nil {
		return nil, err
	}
	disk := max(minDiskSize, img.minDisk)
	if r.DiskSize != nil {
		if *r.DiskSize < disk {
			return nil, badRequest(codeInsufficientDiskSize, "disk_size must be at least %d GiB, got %d", disk, *r.DiskSize)
		}
		disk = *r.DiskSize
	}
	keys, err := s.sshKeyRefs(r.SSHKeys)
	if err != nil {
		return nil, err
	}
	groups, err := s.groupRefs(r.SecurityGroups, r.Region)
	if err != nil {
		return nil, err
	}
	vols, err := s.attachableVolumes(r.Volumes, r.Region, "")
	if err != nil {
		return nil, err
	}
	fip, err := s.floatingIPRef(r.FloatingIP, r.Region)
	if err != nil {
		return nil, err
	}
	if err := s.quota(&s.instances); err != nil {
		return nil, err
	}
	in := &instance{baseImage: img.base, userMetadata: []byte("{}"), instanceBody: instanceBody{
		ID: s.newID("ins"), Name: r.Name, Hostname: r.Hostname,
		DNSName: fmt.Sprintf("%s.%s.compute.example", r.Hostname, strings.ToLower(r.Region)),
		Type:    r.Type, Region: r.Region, PlacementOption: placement, Image: img.ref,
		SSHKeys: keys, SecurityGroups: groups, Volumes: vols, FloatingIP: fip, IsProtected: r.IsProtected,
		DiskSize: disk, OSType: img.osType, ReservationID: nullString(r.ReservationID), CreatedAt: stamp(c.now),
	}}
	if r.Metadata.raw != nil {
		in.userMetadata = r.Metadata.raw
	}
	s.instances.add(in.ID, in)
	s.beginInstance(in, c.now, instanceCreating, instanceActive, s.durations.InstanceCreate)
	return &in.instanceBody, nil
}

// instanceUpdate is the body of PATCH /instances/{id}: only what it carries changes.
type instanceUpdate struct {
	SecurityGroups listChange `json:"security_groups"`
	Volumes        listChange `json:"volumes"`
	Name           *string    `json:"name" fake:"nonblank"`
	IsProtected    *bool      `json:"is_protected"`
	DiskSize       *int       `json:"disk_size"`
	ReservationID  *string    `json:"reservation_id"`
}

func (r *instanceUpdate) check() *Error {
	if !r.SecurityGroups.given && !r.Volumes.given && r.Name == nil && r.IsProtected == nil && r.DiskSize == nil && r.ReservationID == nil {
		return badRequest(codeMissingParameters, "give security_groups, volumes, name, is_protected, disk_size or reservation_id")
	}
	return nil
}

// listChange is an update's security_groups or volumes: the full list, or {"attach": id} or
// {"detach": id} applied to the current one. An object with both keys, or neither, is refused
// (the service's description leaves it open).
type listChange struct {
	given          bool
	name           string
	ids            []string
	attach, detach string
}

func (l *listChange) decodeJSON(name string, raw json.RawMessage) *Error {
	l.name = name
	if isNull(raw) {
		return nil
	}
	l.given = true
	if strings.HasPrefix(strings.TrimSpace(string(raw)), "[") {
		return decodeValue(name, raw, reflect.ValueOf(&l.ids).Elem())
	}
	var keys map[string]json.RawMessage
	err := json.Unmarshal(raw, &keys)
	maps.DeleteFunc(keys, func(k string, _ json.RawMessage) bool { return k == "attach" || k == "detach" })
	if err != nil || keys == nil || len(keys) > 0 { // not an object, or one with other keys
		return typeError(name, "array of strings or an {attach} or {detach} object")
	}
	var m struct {
		Attach string `json:"attach"`
		Detach string `json:"detach"`
	}
	if err := decodeObject(name, raw, reflect.ValueOf(&m).Elem()); err != nil {
		return err
	}
	if (m.Attach == "") == (m.Detach == "") {
		return badRequest(codeBadRequest, "%s must carry exactly one of attach and detach", name)
	}
	l.attach, l.detach = m.Attach, m.Detach
	return nil
}

// apply is the references the change leaves, the current ones if it was not given: the list given,
// or the current one with an ID attached or detached, resolved by refs. Detaching one that is not
// there is refused with the notAttached code (02033 for a volume, 02031 for a security group).
func (l *listChange) apply(current []Ref, notAttached string, refs func(ids []string) ([]Ref, *Error)) ([]Ref, *Error) {
	ids := l.ids
	switch {
	case !l.given:
		return current, nil
	case l.attach != "" && !hasRef(current, l.attach):
		ids = append(refIDs(current), l.attach)
	case l.attach != "":
		ids = refIDs(current)
	case l.detach != "" && !hasRef(current, l.detach):
		return nil, badRequest(notAttached, "%s: %q is not attached", l.name, l.detach)
	case l.detach != "":
		ids = slices.DeleteFunc(refIDs(current), func(id string) bool { return id == l.detach })
	}
	return refs(ids)
}

// updateInstance changes what the body carries, all of it or nothing: only an active instance can
// be updated (02023), its disk only grows (02063), and the lists are checked as a create's.
func updateInstance(s *state, c call, in *instance, r *instanceUpdate) (*instanceBody, *Error) {
	if in.Status != instanceActive {
		return nil, badRequest(codeUpdateRequiresActive, "only active instances can be updated; %q is %s", in.ID, in.Status)
	}
	if r.DiskSize != nil && *r.DiskSize < in.DiskSize {
		return nil, badRequest(codeInsufficientDiskSize, "disk_size can only grow: %d GiB is less than the current %d GiB", *r.DiskSize, in.DiskSize)
	}
	if r.ReservationID != nil {
		if err := s.checkReservation(*r.ReservationID, in.Type, in.Region, in.ID); err != nil {
			return nil, err
		}
	}
	groups, err := r.SecurityGroups.apply(in.SecurityGroups, codeSecurityGroupDetachFailed, func(ids []string) ([]Ref, *Error) { return s.groupRefs(ids, in.Region) })
	if err != nil {
		return nil, err
	}
	vols, err := r.Volumes.apply(in.Volumes, codeVolumeDetachFailed, func(ids []string) ([]Ref, *Error) { return s.attachableVolumes(ids, in.Region, in.ID) })
	if err != nil {
		return nil, err
	}
	for _, old := range in.Volumes {
		if v, ok := s.volumes.find(old.ID); ok && v.locked && !hasRef(vols, old.ID) {
			return nil, badRequest(codeVolumeLocked, "volume %q is locked, cannot be detached", old.ID)
		}
	}
	// Every check passed: apply the whole change.
	s.unlink(in.ID, in.uses()...)
	in.SecurityGroups, in.Volumes = groups, vols
	if r.ReservationID != nil {
		in.ReservationID = nullString(*r.ReservationID)
	}
	s.link(in.ID, in.uses()...)
	setGiven(&in.Name, r.Name)
	setGiven(&in.IsProtected, r.IsProtected)
	setGiven(&in.DiskSize, r.DiskSize)
	in.UpdatedAt = stamp(c.now)
	return &in.instanceBody, nil
}

// deleteInstance starts a destroy. The API limits it by status with two codes and does not say
// which status gets which; the fake sends 02013 ("only active instances can be deleted") for an
// instance that never became active (creating, pending_payment) and 02069 ("only running or stopped
// instances can be deleted") for one in the middle of a transition (stopping, starting, resetting).
// Active, stopped and error instances can be deleted; a delete of an instance already deleting
// succeeds again, so that a DELETE re-sent after a lost response succeeds, as DELETE is idempotent.
// Protection (02038) is checked first.
func deleteInstance(s *state, c call, in *instance, _ *none) (none, *Error) {
	if in.IsProtected {
		return none{}, badRequest(codeTerminationProtected, "the instance %q is termination protected", in.ID)
	}
	switch in.Status {
	case instanceDeleting:
		return none{}, nil
	case instanceActive, instanceStopped, instanceError:
	case instanceCreating, instancePendingPayment:
		return none{}, badRequest(codeDeleteRequiresActive, "only active instances can be deleted; %q is %s", in.ID, in.Status)
	default:
		return none{}, badRequest(codeDeleteRequiresRunningOrStopped, "only running or stopped instances can be deleted; %q is %s", in.ID, in.Status)
	}
	s.beginInstance(in, c.now, instanceDeleting, statusGone, s.durations.InstanceDelete)
	return none{}, nil
}

func listActions(_ *state, _ call, in *instance, _ *none) ([]string, *Error) {
	return allowedActions(in.Status), nil
}

// instanceAction is the body of POST /instances/{id}/actions.
type instanceAction struct {
	Action string `json:"action" fake:"required"`
}

func (r *instanceAction) check() *Error {
	if !slices.Contains([]string{"start", "stop", "reset"}, r.Action) {
		return badRequest(codeBadRequest, "action must be start, stop or reset, got %q", r.Action)
	}
	return nil
}

// performAction runs start, stop or reset. Start on an active instance is 02029 and on anything but
// a stopped one 02039; a stop or reset the current status does not allow (see allowedActions) is
// 02009.
func performAction(s *state, c call, in *instance, r *instanceAction) (none, *Error) {
	switch {
	case r.Action == "start" && in.Status == instanceActive:
		return none{}, badRequest(codeInstanceAlreadyStarted, "instance %q is already started", in.ID)
	case r.Action == "start" && in.Status != instanceStopped:
		return none{}, badRequest(codeInstanceCannotStart, "instance %q cannot be started while %s", in.ID, in.Status)
	case r.Action == "start":
		s.beginInstance(in, c.now, instanceStarting, instanceActive, s.durations.InstanceStart)
	case !slices.Contains(allowedActions(in.Status), r.Action):
		return none{}, badRequest(codeNotAllowed, "%s is not allowed while instance %q is %s", r.Action, in.ID, in.Status)
	case r.Action == "stop":
		s.beginInstance(in, c.now, instanceStopping, instanceStopped, s.durations.InstanceStop)
	default:
		s.beginInstance(in, c.now, instanceResetting, instanceActive, s.durations.InstanceReset)
	}
	return none{}, nil
}

// userMetadata shows the metadata object the instance was created with ({} when it had none). The
// service's description leaves the object's keys open; the fake's choice is the create's own object.
func userMetadata(_ *state, _ call, in *instance, _ *none) (document, *Error) {
	return document{contentType: "application/json", body: append(slices.Clip(in.userMetadata), '\n')}, nil
}
