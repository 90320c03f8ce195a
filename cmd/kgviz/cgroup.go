package main

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Memory per submission. RLIMIT_AS bounds each process of a submission; a
// submission that starts copies of itself could add them up (issue 23: one
// answer re-ran its program 8 times and held 1.6 GiB in one sandbox). So,
// where the machine allows it (the grader runs as root and a memory cgroup
// controller is mounted writable: cgroup v2 with the memory controller at
// its root, or cgroup v1's memory hierarchy), every submission's sandbox
// runs in a memory cgroup of its own whose limit (the -memory value) holds
// for all its processes together; the kernel kills one of them when they
// ask for more. Elsewhere the bound is the process-count limit of the
// submission's own uid times the per-process limit, and without a uid of
// its own (the grader not root) only the per-process limit holds. The
// gradebook row says which (memoryText).

type memCgroup struct {
	version int    // 1 or 2
	base    string // this run's cgroup folder
}

// newMemCgroup makes this run's memory cgroup, or returns nil and why not.
func newMemCgroup() (*memCgroup, string) {
	if os.Geteuid() != 0 {
		return nil, "the grader is not root"
	}
	if os.Getenv("KGVIZ_GRADE_NO_CGROUP") == "1" { // tests of the fallback
		return nil, "KGVIZ_GRADE_NO_CGROUP=1"
	}
	v1, v2 := cgroupMounts()
	var b [6]byte
	rand.Read(b[:])
	name := "kgviz-grade-" + hex.EncodeToString(b[:])
	why := "no writable memory cgroup controller is mounted"
	if v2 != "" {
		ctrl, _ := os.ReadFile(filepath.Join(v2, "cgroup.controllers"))
		if strings.Contains(" "+string(ctrl)+" ", " memory ") {
			base := filepath.Join(v2, name)
			err := os.WriteFile(filepath.Join(v2, "cgroup.subtree_control"), []byte("+memory"), 0)
			if err == nil {
				err = os.Mkdir(base, 0o755)
			}
			if err == nil {
				err = os.WriteFile(filepath.Join(base, "cgroup.subtree_control"), []byte("+memory"), 0)
			}
			if err == nil {
				return &memCgroup{version: 2, base: base}, ""
			}
			os.Remove(base)
			why = fmt.Sprintf("cgroup v2 at %s: %v", v2, err)
		}
	}
	if v1 != "" {
		base := filepath.Join(v1, name)
		if err := os.Mkdir(base, 0o755); err == nil {
			return &memCgroup{version: 1, base: base}, ""
		} else {
			why = fmt.Sprintf("cgroup v1 memory at %s: %v", v1, err)
		}
	}
	return nil, why
}

// cgroupMounts finds the cgroup v1 memory hierarchy and the cgroup v2 mount.
func cgroupMounts() (v1, v2 string) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root mountpoint options - fstype source superoptions
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		f1, f2 := strings.Fields(pre), strings.Fields(post)
		if len(f1) < 5 || len(f2) < 3 || f1[3] != "/" || !strings.HasPrefix(f1[5], "rw") {
			continue
		}
		switch {
		case f2[0] == "cgroup2" && v2 == "":
			v2 = f1[4]
		case f2[0] == "cgroup" && v1 == "" && hasOption(f2[2], "memory"):
			v1 = f1[4]
		}
	}
	return v1, v2
}

func hasOption(opts, o string) bool {
	for _, x := range strings.Split(opts, ",") {
		if x == o {
			return true
		}
	}
	return false
}

// slotCgroup makes the cgroup of one slot, limited to limit bytes for all
// its processes together (and no swap beyond it), owned by the grader; on
// cgroup v1, its cgroup.procs is given to the slot's uid, for the slot's
// first process to move itself in (see slot.command).
func (m *memCgroup) slotCgroup(slot string, uid int, limit int64) (string, error) {
	dir := filepath.Join(m.base, slot)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", err
	}
	n := []byte(strconv.FormatInt(limit, 10))
	var err error
	if m.version == 2 {
		err = os.WriteFile(filepath.Join(dir, "memory.max"), n, 0)
		if err == nil {
			os.WriteFile(filepath.Join(dir, "memory.swap.max"), []byte("0"), 0) // absent without swap accounting
		}
	} else {
		err = os.WriteFile(filepath.Join(dir, "memory.limit_in_bytes"), n, 0)
		if err == nil {
			os.WriteFile(filepath.Join(dir, "memory.memsw.limit_in_bytes"), n, 0) // absent without swap accounting
			err = os.Chown(filepath.Join(dir, "cgroup.procs"), uid, uid)
		}
	}
	if err != nil {
		os.Remove(dir)
		return "", err
	}
	return dir, nil
}

// oomKills says how many processes of a slot's cgroup the kernel killed
// for going beyond its limit.
func oomKills(dir string) int {
	file := "memory.events"
	if _, err := os.Stat(filepath.Join(dir, file)); err != nil {
		file = "memory.oom_control"
	}
	data, _ := os.ReadFile(filepath.Join(dir, file))
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "oom_kill" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return 0
}

// removeCgroup removes a cgroup once its processes are gone.
func removeCgroup(dir string) {
	for i := 0; i < 50; i++ {
		if err := os.Remove(dir); err == nil || os.IsNotExist(err) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// memoryText says how the memory of a submission is limited.
func (s *sandbox) memoryText() string {
	switch {
	case s.mem != nil:
		return fmt.Sprintf("%s for all the submission's processes together (a memory cgroup, v%d)", sizeText(s.run.memory), s.mem.version)
	case s.asRoot:
		return fmt.Sprintf("%s per process, at most %d processes and threads (%s in all; no memory cgroup here: %s)", sizeText(s.run.memory), s.run.nproc, sizeText(s.run.memory*int64(s.run.nproc)), s.noCgroup)
	}
	return fmt.Sprintf("%s per process, the number of processes not limited (no memory cgroup here: %s; no uid of its own)", sizeText(s.run.memory), s.noCgroup)
}
