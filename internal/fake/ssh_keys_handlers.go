package fake

// sshKeyCreate is the body of POST /ssh-keys.
type sshKeyCreate struct {
	Name  string `json:"name" fake:"required"`
	Value string `json:"value" fake:"required"`
}

func createSSHKey(s *state, c call, r *sshKeyCreate) (*sshKey, *Error) {
	k, err := readPublicKey(r.Value)
	if err != nil {
		return nil, err
	}
	if err := s.quota(&s.sshKeys); err != nil {
		return nil, err
	}
	k.ID, k.Name, k.CreatedAt, k.UpdatedAt = s.newID("key"), r.Name, stamp(c.now), stamp(c.now)
	s.sshKeys.add(k.ID, k)
	return k, nil
}

// updateSSHKey renames a key; the instances that show it show the new name. An empty body changes
// nothing.
func updateSSHKey(s *state, c call, k *sshKey, r *rename) (*sshKey, *Error) {
	if r.Name != nil {
		k.Name, k.UpdatedAt = *r.Name, stamp(c.now)
		s.renamed("key", k.ID, k.Name)
	}
	return k, nil
}
