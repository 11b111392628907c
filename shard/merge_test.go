package shard

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type testArgs struct {
	Seed  int `json:"seed"`
	Count int `json:"count"`
}

type testData struct {
	Square int `json:"square"`
}

// writeRun writes the n shard files of a run of total items, item k's
// record holding k², stopping shard stop (if ≥ 0) after its first item.
func writeRun(t *testing.T, dir, command string, args testArgs, total, n, stop int) []string {
	t.Helper()
	var paths []string
	for i := 0; i < n; i++ {
		f, err := New(command, args, Spec{i, n}, total)
		if err != nil {
			t.Fatal(err)
		}
		r := f.Items
		for k := r.First; k < r.End; k++ {
			if err := f.Add(k, testData{k * k}); err != nil {
				t.Fatal(err)
			}
			if i == stop {
				break
			}
		}
		p := filepath.Join(dir, Spec{i, n}.String()[:1]+".json")
		if err := f.Write(p); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

func squares(t *testing.T, m *Merged) []int {
	var got []int
	for _, r := range m.Records {
		var d testData
		if err := r.Decode(&d); err != nil {
			t.Fatal(err)
		}
		got = append(got, d.Square)
	}
	return got
}

func TestMergeWholeRun(t *testing.T) {
	dir := t.TempDir()
	args := testArgs{Seed: 7, Count: 10}
	p := writeRun(t, dir, "test", args, 10, 4, -1)
	m, err := MergeFiles(p[2], p[0], p[3], p[1]) // any order
	if err != nil {
		t.Fatal(err)
	}
	var want []int
	for k := 0; k < 10; k++ {
		want = append(want, k*k)
	}
	if diff := cmp.Diff(want, squares(t, m)); diff != "" {
		t.Errorf("merged records (-want +got):\n%s", diff)
	}
	var got testArgs
	if err := m.DecodeArgs(&got); err != nil || got != args {
		t.Errorf("DecodeArgs = %+v, %v; want %+v", got, err, args)
	}
	if m.FirstMissing() != -1 || m.Total != 10 || m.Shards != 4 || m.Command != "test" {
		t.Errorf("merged %q: total %d, %d shards, first missing %d", m.Command, m.Total, m.Shards, m.FirstMissing())
	}
	// Nothing but the four results is left in the directory.
	ents, _ := os.ReadDir(dir)
	if len(ents) != 4 {
		t.Errorf("%d files in the result directory, want the 4 results: %v", len(ents), ents)
	}
}

// The same shard written twice is the same bytes: no times, no hosts, no
// map order.
func TestFileDeterministic(t *testing.T) {
	a := writeRun(t, t.TempDir(), "test", testArgs{1, 5}, 5, 2, -1)
	b := writeRun(t, t.TempDir(), "test", testArgs{1, 5}, 5, 2, -1)
	for k := range a {
		x, _ := os.ReadFile(a[k])
		y, _ := os.ReadFile(b[k])
		if !bytes.Equal(x, y) || len(x) == 0 {
			t.Errorf("shard %d written twice differs:\n%s\n%s", k, x, y)
		}
	}
}

func TestMergeStoppedShard(t *testing.T) {
	p := writeRun(t, t.TempDir(), "test", testArgs{1, 10}, 10, 4, 1) // shard 1 holds items 3..5, stops after 3
	m, err := MergeFiles(p...)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.FirstMissing(); got != 4 {
		t.Errorf("FirstMissing = %d, want 4", got)
	}
	if got := m.ShardOf(4); got != (Spec{1, 4}) {
		t.Errorf("ShardOf(4) = %v, want 1/4", got)
	}
}

func TestMergeErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		mangle  func(t *testing.T, dir string, p []string) []string
		wantErr []string
	}{
		{name: "missing shard", mangle: func(t *testing.T, dir string, p []string) []string {
			return []string{p[0], p[1], p[3]}
		}, wantErr: []string{"shard 2/4 is missing", "3 of 4"}},
		{name: "two missing", mangle: func(t *testing.T, dir string, p []string) []string {
			return []string{p[3], p[1]}
		}, wantErr: []string{"shards 0/4, 2/4 are missing"}},
		{name: "given twice", mangle: func(t *testing.T, dir string, p []string) []string {
			return []string{p[0], p[1], p[1], p[2], p[3]}
		}, wantErr: []string{"shard 1/4 is given twice", "1.json and "}},
		{name: "other arguments", mangle: func(t *testing.T, dir string, p []string) []string {
			q := writeRun(t, t.TempDir(), "test", testArgs{2, 10}, 10, 4, -1)
			return []string{p[0], p[1], q[2], p[3]}
		}, wantErr: []string{"(shard 2/4) is from another run", `{"seed":2,"count":10}`, `not {"seed":1,"count":10}`}},
		{name: "other command", mangle: func(t *testing.T, dir string, p []string) []string {
			q := writeRun(t, t.TempDir(), "other", testArgs{1, 10}, 10, 4, -1)
			return []string{p[0], q[1], p[2], p[3]}
		}, wantErr: []string{"(shard 1/4) is from another run", `command "other", not "test"`}},
		{name: "other shard count", mangle: func(t *testing.T, dir string, p []string) []string {
			q := writeRun(t, t.TempDir(), "test", testArgs{1, 10}, 10, 5, -1)
			return []string{p[0], q[1], p[2], p[3]}
		}, wantErr: []string{"(shard 1/5) is from another run", "5 shards, not 4"}},
		{name: "edited record", mangle: func(t *testing.T, dir string, p []string) []string {
			b, _ := os.ReadFile(p[1])
			b = bytes.Replace(b, []byte(`"square": 16`), []byte(`"square": 17`), 1)
			os.WriteFile(p[1], b, 0o644)
			return p
		}, wantErr: []string{"1.json: shard 1/4 is damaged", "checksum", "intact files leave shard 1/4 missing"}},
		{name: "truncated", mangle: func(t *testing.T, dir string, p []string) []string {
			b, _ := os.ReadFile(p[2])
			os.WriteFile(p[2], b[:len(b)/2], 0o644)
			return p
		}, wantErr: []string{"not a shard result file", "intact files leave shard 2/4 missing"}},
		{name: "absent file", mangle: func(t *testing.T, dir string, p []string) []string {
			return []string{p[0], p[1], p[2], filepath.Join(dir, "nope.json")}
		}, wantErr: []string{"nope.json", "no such file", "leave shard 3/4 missing"}},
		{name: "record out of its range", mangle: func(t *testing.T, dir string, p []string) []string {
			f, err := Read(p[0])
			if err != nil {
				t.Fatal(err)
			}
			f.Records[1].Item = 5
			if err := f.Write(p[0]); err != nil {
				t.Fatal(err)
			}
			return p
		}, wantErr: []string{"shard 0/4: record 1 is of item 5, want 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := writeRun(t, dir, "test", testArgs{1, 10}, 10, 4, -1)
			m, err := MergeFiles(tc.mangle(t, dir, p)...)
			if err == nil {
				t.Fatalf("MergeFiles = %d records, no error", len(m.Records))
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestAddOutOfOrder(t *testing.T) {
	f, err := New("test", testArgs{}, Spec{1, 2}, 10) // items 5..9
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Add(6, testData{}); err == nil {
		t.Error("Add(6) as the first item of 5..9: no error")
	}
	for k := 5; k < 10; k++ {
		if err := f.Add(k, testData{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Add(10, testData{}); err == nil {
		t.Error("Add(10) beyond 5..9: no error")
	}
	if err := f.Add(10, make(chan int)); err == nil {
		t.Error("Add of unmarshallable data: no error")
	}
}

// A write that cannot finish leaves nothing behind and the old file intact.
func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	f, _ := New("test", testArgs{}, Whole, 1)
	if err := f.Write(filepath.Join(dir, "missing", "r.json")); err == nil {
		t.Error("Write into a missing directory: no error")
	}
	path := filepath.Join(dir, "r.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := &File{Header: Header{Format: Format, Command: "test", Args: json.RawMessage(`{not json`), Shard: Whole}}
	if err := bad.Write(path); err == nil {
		t.Error("Write of a file with broken arguments: no error")
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("after a failed Write the file holds %q, want the old content", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d entries left in the directory, want 1: %v", len(ents), ents)
	}
}
