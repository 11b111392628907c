package shard

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hwgen/hwgen/internal/budget"
)

// Format names the layout of a result file; a reader refuses others.
const Format = "hwgen-shard/1"

// Header says which run a file is a part of. Everything in a file is
// deterministic — no times, no host names — so that the same shard run
// twice writes the same bytes and a merge compares like with like.
type Header struct {
	Format  string `json:"format"`
	Command string `json:"command"` // the command, e.g. "verify fuzz"
	// Args are the command's arguments that decide the result (seeds,
	// counts, configuration), as a JSON object; shards merge only when
	// their Args are equal. Paths of outputs and the shard flags are not
	// among them.
	Args  json.RawMessage `json:"args"`
	Shard Spec            `json:"shard"`
	Items Range           `json:"items"` // Shard.Items(Items.Total)
	// Stopped says why the records end before the range does: "" for a
	// whole range, "interrupted" for a run stopped by a signal (written
	// to PartialPath, never over an earlier result), or the failure that
	// ended it.
	Stopped string `json:"stopped,omitempty"`
}

// PartialSuffix is added to a result's path for the records of an
// interrupted run: the earlier result under the real name stays as it
// was, and hwgen merge, finding the partial file beside it, says that
// the shard was interrupted.
const PartialSuffix = ".partial"

// Record is one item's result; Data is the command's own JSON.
type Record struct {
	Item int             `json:"item"`
	Data json.RawMessage `json:"data"`
}

// Decode unmarshals the record's data into v.
func (r Record) Decode(v any) error {
	if err := json.Unmarshal(r.Data, v); err != nil {
		return fmt.Errorf("record of item %d: %w", r.Item, err)
	}
	return nil
}

// File is one shard's result: its header, a checksum and the records of
// the items it ran, in order. The records are a prefix of the shard's
// range: all of it, or fewer when the command stops at a failure (a fuzz
// campaign stops at the first design that disagrees).
type File struct {
	Header
	// Checksum is "sha256:" and the hex SHA-256 of the compact JSON of
	// the header and the records, so a truncated or edited file is caught.
	Checksum string   `json:"checksum"`
	Records  []Record `json:"records"`
}

// New starts the result of shard s of a run of total items of command,
// whose deciding arguments are args (marshalled to JSON: use a struct or
// sorted keys, so equal arguments give equal bytes).
func New(command string, args any, s Spec, total int) (*File, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if total < 0 {
		return nil, fmt.Errorf("%s: %d items: need 0 or more", command, total)
	}
	a, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("%s: arguments: %w", command, err)
	}
	return &File{Header: Header{Format: Format, Command: command, Args: a, Shard: s, Items: s.Items(total)},
		Records: []Record{}}, nil
}

// Add appends the result of item, which must be the next item of the
// shard's range.
func (f *File) Add(item int, data any) error {
	if next := f.Items.First + len(f.Records); item != next || item >= f.Items.End {
		return fmt.Errorf("shard %s (%s): item %d added, want %d", f.Shard, f.Items, item, next)
	}
	d, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("item %d: %w", item, err)
	}
	f.Records = append(f.Records, Record{Item: item, Data: d})
	return nil
}

// sum is the checksum of f's content.
func (f *File) sum() (string, error) {
	b, err := json.Marshal(struct {
		Header
		Records []Record `json:"records"`
	}{f.Header, f.Records})
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(h[:]), nil
}

// Marshal seals f with its checksum and returns the file's bytes.
func (f *File) Marshal() ([]byte, error) {
	sum, err := f.sum()
	if err != nil {
		return nil, fmt.Errorf("shard %s: %w", f.Shard, err)
	}
	f.Checksum = sum
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("shard %s: %w", f.Shard, err)
	}
	return append(b, '\n'), nil
}

// Write writes f to path atomically: into a temporary file beside it,
// synced, then renamed over path, so a reader (or a merge after a crash)
// sees the old file or the whole new one, never half of it.
func (f *File) Write(path string) error {
	b, err := f.Marshal()
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return fmt.Errorf("writing shard result: %w", err)
	}
	defer os.Remove(tmp.Name()) // fails harmlessly after the rename
	// CreateTemp makes the file private; a result is for whoever merges
	// the shards, often another user of a shared volume.
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("writing shard result %s: %w", path, err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("writing shard result %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("writing shard result %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing shard result %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing shard result %s: %w", path, err)
	}
	return nil
}

// Decode reads a result file's bytes and checks that it is whole: the
// format, the checksum, the shard and its range, the records a prefix of
// the range.
func Decode(data []byte) (*File, error) {
	var f File
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("not a shard result file: %w", err)
	}
	if f.Format != Format {
		return nil, fmt.Errorf("format %q, want %q", f.Format, Format)
	}
	sum, err := f.sum()
	if err != nil {
		return nil, fmt.Errorf("shard %s: %w", f.Shard, err)
	}
	if f.Checksum != sum {
		return &f, fmt.Errorf("shard %s is damaged: its checksum %s does not match its content (%s)", f.Shard, f.Checksum, sum)
	}
	if err := f.Shard.Validate(); err != nil {
		return &f, fmt.Errorf("shard %s: %w", f.Shard, err)
	}
	if want := f.Shard.Items(f.Items.Total); f.Items != want {
		return &f, fmt.Errorf("shard %s: items %d..%d, but shard %s of %d items is %s", f.Shard, f.Items.First, f.Items.End-1, f.Shard, f.Items.Total, want)
	}
	if len(f.Records) > f.Items.Len() {
		return &f, fmt.Errorf("shard %s: %d records for %d items", f.Shard, len(f.Records), f.Items.Len())
	}
	for k, r := range f.Records {
		if r.Item != f.Items.First+k {
			return &f, fmt.Errorf("shard %s: record %d is of item %d, want %d", f.Shard, k, r.Item, f.Items.First+k)
		}
	}
	return &f, nil
}

// Read reads and checks the result file at path (see Decode).
func Read(path string) (*File, error) {
	b, err := budget.ReadFile(path, "a shard result file", budget.ResultMax)
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return nil, fmt.Errorf("%s: %w", path, pe.Err)
	} else if err != nil {
		return nil, err
	}
	f, err := Decode(b)
	if err != nil {
		return f, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}
