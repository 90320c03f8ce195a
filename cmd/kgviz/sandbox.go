package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// The sandbox. Every submission is built and run by a user of its own (a
// fresh uid when the grader runs as root; the teacher's own uid otherwise),
// inside bubblewrap's namespaces: its own mount namespace that holds the Go
// toolchain and a read-only copy of the kgviz module (build) or the built
// program alone (run), a private scratch folder, its own pid namespace (when
// bwrap ends, everything started inside dies), no network, no further user
// namespaces, no capabilities, and rlimits on CPU time, address space, file
// size, open files and (with a fresh uid) processes. Nothing of the course,
// the solutions, other submissions or the gradebook is visible inside.
//
// With -unsafe (only where no sandbox can be made), the same programs run
// directly, with the same rlimits and a cleared environment, but see the
// whole machine.

type limits struct {
	cpu    time.Duration // RLIMIT_CPU, per process
	memory int64         // RLIMIT_AS, bytes
	fsize  int64         // RLIMIT_FSIZE, bytes
	nofile int           // RLIMIT_NOFILE
	nproc  int           // RLIMIT_NPROC (only with a uid of its own)
	tmp    int64         // size of the private /tmp
}

var (
	buildLimits = limits{cpu: 120 * time.Second, memory: 4 << 30, fsize: 512 << 20, nofile: 1024, nproc: 512, tmp: 256 << 20}
	runLimits   = limits{cpu: 120 * time.Second, memory: 1 << 30, fsize: 16 << 20, nofile: 256, nproc: 64, tmp: 16 << 20}
)

// goFlags are the build flags of the warm cache and of every submission (the
// cache keys depend on them). The tag kgvizgrade leaves out what only a
// notebook's kernel uses (exercises' display of a prediction's record, which
// imports GoNB: the sandbox has no module but kgviz's own).
const goFlags = "-mod=mod -buildvcs=false -trimpath -tags=kgvizgrade"

type sandbox struct {
	unsafe   bool
	bwrap    string
	prlimit  string
	goBin    string
	goroot   string
	root     string // this run's folder (0711): module copy, slots
	module   string // the read-only copy of the kgviz module
	warm     string // the warm Go build cache (read-only for the sandboxes)
	warmBind string // where the sandboxes' user can reach it (a link of it in root, when the grader is root)
	asRoot   bool
	uidBase  uint32
	nextUID  atomic.Uint32
	mu       sync.Mutex
	uids     []int // every uid this run used (tests look for leftovers)
	run      limits
	self     string     // the sandbox's GOCACHEPROG (cmd/kgviz/cacheprog), built statically
	mem      *memCgroup // nil: no memory cgroup (noCgroup says why)
	noCgroup string
	sh       string // the shell that moves a slot's first process into its cgroup (cgroup v1)
}

type sandboxOptions struct {
	unsafe     bool
	moduleRoot string // the kgviz checkout whose packages the answers may import
	cacheDir   string // where warm build caches are kept between runs
	memory     int64
	log        io.Writer
}

// newSandbox prepares a run: the module copy, the warm build cache, and a
// probe that the sandbox works. It refuses with an error that says what to
// do when no sandbox can be made.
func newSandbox(o sandboxOptions) (*sandbox, error) {
	s := &sandbox{unsafe: o.unsafe, run: runLimits}
	if o.memory > 0 {
		s.run.memory = o.memory
	}
	var err error
	if s.goBin, err = exec.LookPath("go"); err != nil {
		return nil, fmt.Errorf("the Go toolchain is not on PATH: %v", err)
	}
	out, err := exec.Command(s.goBin, "env", "GOROOT", "GOVERSION").Output()
	if err != nil {
		return nil, fmt.Errorf("go env: %v", err)
	}
	env := strings.Fields(string(out))
	if len(env) != 2 {
		return nil, fmt.Errorf("go env GOROOT GOVERSION: %q", out)
	}
	s.goroot = env[0]
	s.goBin = filepath.Join(s.goroot, "bin", "go")
	s.prlimit, _ = exec.LookPath("prlimit")
	if !s.unsafe {
		if s.bwrap, err = exec.LookPath("bwrap"); err != nil {
			return nil, errNoSandbox("bubblewrap (bwrap) is not installed")
		}
		if s.prlimit == "" {
			return nil, errNoSandbox("prlimit (util-linux) is not installed")
		}
	}
	s.asRoot = os.Geteuid() == 0 && !s.unsafe
	if s.asRoot {
		var b [4]byte
		rand.Read(b[:])
		// uids far above any real user's, 1024 per run, a run at random.
		s.uidBase = 1_000_000_000 + (binary.LittleEndian.Uint32(b[:])%1_000_000)*1024 // below 2^31: bwrap maps uids as signed ints
	}
	if s.asRoot {
		if s.sh, err = exec.LookPath("sh"); err != nil {
			s.noCgroup = "no sh"
		} else {
			s.mem, s.noCgroup = newMemCgroup()
		}
	} else {
		s.noCgroup = "the grader is not root"
		if s.unsafe {
			s.noCgroup = "-unsafe"
		}
	}
	if o.log != nil {
		fmt.Fprintf(o.log, "kgviz grade: memory of a submission: %s\n", s.memoryText())
	}
	if s.root, err = os.MkdirTemp("", "kgviz-grade-"); err != nil {
		s.close()
		return nil, err
	}
	if err := os.Chmod(s.root, 0o711); err != nil {
		return nil, err
	}
	if err := s.buildCacheProg(o.moduleRoot); err != nil {
		s.close()
		return nil, fmt.Errorf("building the sandbox's cache program: %v", err)
	}
	if err := s.copyModule(o.moduleRoot); err != nil {
		s.close()
		return nil, fmt.Errorf("copying the kgviz module for the sandbox: %v", err)
	}
	if err := s.warmUp(o.cacheDir, env[1], o.log); err != nil {
		s.close()
		if s.unsafe {
			return nil, err
		}
		return nil, errNoSandbox(err.Error())
	}
	return s, nil
}

func errNoSandbox(why string) error {
	return fmt.Errorf("cannot make a sandbox for the students' code: %s.\n"+
		"Install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) on a Linux machine that allows user namespaces,\n"+
		"or grade inside the kgviz image (README, \"Grading a class\"); -unsafe runs the students' code without a sandbox\n"+
		"(only for code you trust)", why)
}

func (s *sandbox) close() {
	if s.root != "" {
		makeWritable(s.root)
		os.RemoveAll(s.root)
	}
	if s.mem != nil {
		left, _ := filepath.Glob(filepath.Join(s.mem.base, "slot-*"))
		for _, d := range left {
			removeCgroup(d)
		}
		removeCgroup(s.mem.base)
	}
}

// buildCacheProg builds the sandbox's GOCACHEPROG (cmd/kgviz/cacheprog),
// statically: the sandbox has no system libraries. It is trusted code, built
// with the teacher's own toolchain and cache, outside the sandbox.
func (s *sandbox) buildCacheProg(moduleRoot string) error {
	s.self = filepath.Join(s.root, "kgviz-cacheprog")
	cmd := exec.Command(s.goBin, "build", "-trimpath", "-o", s.self, modulePath+"/cmd/kgviz/cacheprog")
	cmd.Dir = moduleRoot
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%v: %s", err, out)
	}
	return os.Chmod(s.self, 0o555)
}

// copyModule copies the packages an answer program may import (kgviz,
// exercises, exercises/pipe and whatever they import from the module; Go
// sources and embedded files, no tests) with go.mod and go.sum. Nothing
// else of the checkout (solutions/, notebooks, the gradebook) is copied.
func (s *sandbox) copyModule(root string) error {
	s.module = filepath.Join(s.root, "module")
	cmd := exec.Command(s.goBin, "list", "-deps", "-f", "{{if .Module}}{{if eq .Module.Path \""+modulePath+"\"}}{{.Dir}}|{{join .GoFiles \",\"}}|{{join .EmbedFiles \",\"}}{{end}}{{end}}",
		modulePath+"/exercises", modulePath+"/exercises/pipe")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod -tags=kgvizgrade") // the files goFlags builds
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("go list in %s: %v %s", root, err, stderr.String())
	}
	files := []string{"go.mod", "go.sum"}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.Split(line, "|")
		if len(parts) != 3 {
			continue
		}
		rel, err := filepath.Rel(root, parts[0])
		if err != nil || strings.HasPrefix(rel, "..") {
			return fmt.Errorf("package %s is outside the module", parts[0])
		}
		for _, f := range append(strings.Split(parts[1], ","), strings.Split(parts[2], ",")...) {
			if f != "" {
				files = append(files, filepath.Join(rel, f))
			}
		}
	}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			return err
		}
		dst := filepath.Join(s.module, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, data, 0o444); err != nil {
			return err
		}
	}
	return filepath.WalkDir(s.module, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			err = os.Chmod(p, 0o555)
		}
		return err
	})
}

// warmTemplate is compiled once into the warm cache: the packages every
// answer program links, and the standard packages answers commonly use.
var warmStd = []string{"bytes", "errors", "fmt", "maps", "math", "math/rand", "math/rand/v2", "os", "regexp", "slices", "sort", "strconv", "strings", "sync", "time", "unicode", "unicode/utf8", "container/heap", "container/list"}

func warmSource() string {
	var b strings.Builder
	b.WriteString("package main\n\nimport (\n\t_ \"" + modulePath + "/exercises\"\n\t_ \"" + modulePath + "/kgviz\"\n")
	for _, p := range warmStd {
		fmt.Fprintf(&b, "\t_ %q\n", p)
	}
	b.WriteString("\tkgvizpipe \"" + modulePath + "/exercises/pipe\"\n)\n\nfunc main() { kgvizpipe.Serve(nil) }\n")
	return b.String()
}

func answersGoMod(module string) string {
	return "module kgvizanswers\n\ngo 1.26\n\nrequire " + modulePath + " v0.0.0-00010101000000-000000000000\n\nreplace " + modulePath + " => " + module + "\n"
}

// warmMarker is the last file a complete warm cache gets.
const warmMarker = "kgviz-warm-complete"

// warmUp finds or builds the warm cache for this toolchain and module copy.
// It is built in the sandbox itself, so that its paths are the ones every
// submission's build uses, and is then made read-only.
func (s *sandbox) warmUp(cacheDir, goVersion string, log io.Writer) error {
	h := sha256.New()
	fmt.Fprintf(h, "kgviz grade cache v2 (cacheprog)\x00%s\x00%s\x00%s\x00%s\x00%v\x00", goVersion, s.goroot, goFlags, warmSource(), s.unsafe)
	filepath.WalkDir(s.module, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(s.module, p)
			fmt.Fprintf(h, "%s\x00%d\x00", rel, len(data))
			h.Write(data)
		}
		return nil
	})
	if cacheDir == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			dir = os.TempDir()
		}
		cacheDir = filepath.Join(dir, "kgviz-grade")
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return err
	}
	s.warm = filepath.Join(cacheDir, hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(filepath.Join(s.warm, warmMarker)); err == nil {
		if err := s.bindable(); err != nil {
			return err
		}
		return s.probe()
	}
	start := time.Now()
	if log != nil {
		fmt.Fprintf(log, "kgviz grade: building the sandbox's Go cache once (%s) ...\n", s.warm)
	}
	sl, err := s.newSlot(true)
	if err != nil {
		return err
	}
	defer sl.remove()
	if err := sl.writeSources(map[string]string{"main.go": warmSource()}); err != nil {
		return err
	}
	out, err := sl.build(context.Background(), 10*time.Minute)
	if err != nil {
		return fmt.Errorf("the sandbox could not build the answers' program: %v\n%s", err, clip(out, 2000))
	}
	// Made read-only (and the grader's own) before it is shared.
	if err := os.WriteFile(filepath.Join(sl.cache, warmMarker), []byte(goVersion+"\n"), 0o444); err != nil {
		return err
	}
	tmp := s.warm + ".tmp-" + strconv.Itoa(os.Getpid())
	os.RemoveAll(tmp)
	if err := os.Rename(sl.cache, tmp); err != nil {
		return err
	}
	err = filepath.WalkDir(tmp, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if s.asRoot {
			os.Lchown(p, 0, 0)
		}
		if d.IsDir() {
			return os.Chmod(p, 0o555)
		}
		return os.Chmod(p, 0o444)
	})
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(s.warm, warmMarker)); err != nil {
		// Nobody finished it meanwhile: an incomplete one is replaced.
		makeWritable(s.warm)
		os.RemoveAll(s.warm)
		if err := os.Rename(tmp, s.warm); err != nil {
			return err
		}
	}
	makeWritable(tmp)
	os.RemoveAll(tmp)
	if log != nil {
		fmt.Fprintf(log, "kgviz grade: sandbox cache ready in %.1fs\n", time.Since(start).Seconds())
	}
	return s.bindable()
}

// bindable makes the warm cache reachable by the sandboxes' users: the
// folders above it (root's ~/.cache) are closed to other users, so a run as
// root links it into its own folder (or copies it where links cannot go).
func (s *sandbox) bindable() error {
	if !s.asRoot {
		s.warmBind = s.warm
		return nil
	}
	s.warmBind = filepath.Join(s.root, "warm")
	err := filepath.WalkDir(s.warm, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(s.warm, p)
		dst := filepath.Join(s.warmBind, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		if os.Link(p, dst) == nil {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o444)
	})
	if err != nil {
		return fmt.Errorf("linking the warm cache for the sandbox: %v", err)
	}
	return filepath.WalkDir(s.warmBind, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			err = os.Chmod(p, 0o555)
		}
		return err
	})
}

// probe checks that a sandbox can be made and runs the toolchain.
func (s *sandbox) probe() error {
	sl, err := s.newSlot(false)
	if err != nil {
		return err
	}
	defer sl.remove()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := sl.command(ctx, "build", buildLimits, s.goBin, "version")
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.HasPrefix(out, []byte("go version")) {
		return fmt.Errorf("the sandbox does not start (%v): %s", err, clip(strings.TrimSpace(string(out)), 500))
	}
	return nil
}

// slot is one submission's place: a uid and a scratch folder holding the
// answers' module (src). Builds read the warm cache through a read-only
// mount and keep their own compiles on the sandbox's tmpfs (see
// cacheprog.go); only the warm-up writes a cache of its own.
type slot struct {
	s     *sandbox
	uid   int
	dir   string
	src   string
	cache string // a writable build cache (warm-up only); "" for the read-only warm cache
	open  []*os.File
	// cgroup is the slot's memory cgroup ("" without one): the answers'
	// program and everything it starts run in it (not the build).
	cgroup string
}

func (s *sandbox) newSlot(writableCache bool) (*slot, error) {
	var err error
	sl := &slot{s: s, uid: os.Getuid()}
	if s.asRoot {
		sl.uid = int(s.uidBase + s.nextUID.Add(1))
	}
	s.mu.Lock()
	s.uids = append(s.uids, sl.uid)
	s.mu.Unlock()
	if sl.dir, err = os.MkdirTemp(s.root, "slot-"); err != nil {
		return nil, err
	}
	sl.src = filepath.Join(sl.dir, "src")
	dirs := []string{sl.src}
	if writableCache {
		sl.cache = filepath.Join(sl.dir, "cache")
		dirs = append(dirs, sl.cache)
	}
	for _, d := range dirs {
		if err := os.Mkdir(d, 0o700); err != nil {
			return nil, err
		}
	}
	if s.asRoot {
		for _, d := range append(dirs, sl.dir) {
			if err := os.Lchown(d, sl.uid, sl.uid); err != nil {
				return nil, err
			}
		}
	}
	if s.mem != nil && !writableCache {
		if sl.cgroup, err = s.mem.slotCgroup(filepath.Base(sl.dir), sl.uid, s.run.memory); err != nil {
			return nil, fmt.Errorf("the submission's memory cgroup: %v", err)
		}
	}
	return sl, nil
}

func (sl *slot) writeSources(files map[string]string) error {
	entries, _ := os.ReadDir(sl.src)
	for _, e := range entries {
		os.RemoveAll(filepath.Join(sl.src, e.Name()))
	}
	module := "/kgviz" // where the build sandbox mounts the copy
	if sl.s.unsafe {
		module = sl.s.module
	}
	files["go.mod"] = answersGoMod(module)
	for name, text := range files {
		p := filepath.Join(sl.src, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return err
		}
		if sl.s.asRoot {
			os.Lchown(p, sl.uid, sl.uid)
		}
	}
	return nil
}

// build runs go build in the sandbox; the program is src/answers.
func (sl *slot) build(ctx context.Context, timeout time.Duration) (string, error) {
	parallel := "1" // submissions are built side by side (-j)
	if sl.cache != "" {
		parallel = strconv.Itoa(runtime.NumCPU()) // the warm-up is alone
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	os.Remove(filepath.Join(sl.src, "answers"))
	cmd := sl.command(ctx, "build", buildLimits, sl.s.goBin, "build", "-p", parallel, "-o", sl.path("src", "answers"), ".")
	defer sl.closeFiles()
	var out limitedBuffer
	out.max = 64 << 10
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	sl.killUser()
	if ctx.Err() != nil {
		return out.String(), fmt.Errorf("the build did not finish within %s", timeout)
	}
	return out.String(), err
}

// path is where a file of the slot is seen from inside the sandbox.
func (sl *slot) path(area, name string) string {
	if sl.s.unsafe {
		return filepath.Join(sl.dir, area, name)
	}
	return "/" + area + "/" + name
}

func (sl *slot) env(phase string) []string {
	if phase == "build" {
		home, prog, ro, rw := "/tmp", "/kgviz-cacheprog", "/cache", "/tmp/cache"
		if sl.s.unsafe {
			home = filepath.Join(sl.dir, "home")
			os.MkdirAll(home, 0o700)
			prog, ro, rw = sl.s.self, sl.s.warm, filepath.Join(home, "cache")
		}
		if sl.cache != "" { // the warm-up writes the shared cache
			ro, rw = "", "/cache"
			if sl.s.unsafe {
				rw = sl.cache
			}
		}
		if ro == "" {
			ro = "/nonexistent"
		}
		return []string{"HOME=" + home, "GOCACHE=" + filepath.Join(home, "gocache"), "GOCACHEPROG=" + prog + " " + ro + " " + rw,
			"GOPATH=" + filepath.Join(home, "gopath"), "GOFLAGS=" + goFlags, "GOPROXY=off", "GOSUMDB=off",
			"GOTOOLCHAIN=local", "CGO_ENABLED=0", "GOWORK=off", "GOTELEMETRY=off", "GOENV=off", "PATH=" + filepath.Join(sl.s.goroot, "bin")}
	}
	home := "/tmp"
	if sl.s.unsafe {
		home = sl.dir
	}
	return []string{"HOME=" + home, "TMPDIR=" + home, "GOTRACEBACK=single"}
}

// command makes the command line of one sandboxed process.
func (sl *slot) command(ctx context.Context, phase string, lim limits, argv ...string) *exec.Cmd {
	s := sl.s
	var args []string
	if s.prlimit != "" {
		args = append(args, s.prlimit,
			fmt.Sprintf("--cpu=%d", int(lim.cpu.Seconds())),
			fmt.Sprintf("--as=%d", lim.memory),
			fmt.Sprintf("--fsize=%d", lim.fsize),
			fmt.Sprintf("--nofile=%d", lim.nofile),
			"--core=0")
		if s.asRoot {
			args = append(args, fmt.Sprintf("--nproc=%d", lim.nproc))
		}
		args = append(args, "--")
	}
	inCgroup := phase == "run" && sl.cgroup != ""
	if inCgroup && s.mem.version == 1 {
		// The first process moves itself into the slot's cgroup before it
		// starts anything: all that follows is born in it.
		args = append([]string{s.sh, "-c", `echo $$ > "$0" && exec "$@"`, filepath.Join(sl.cgroup, "cgroup.procs")}, args...)
	}
	if s.unsafe {
		args = append(args, argv...)
	} else {
		args = append(args, s.bwrap,
			"--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
			"--disable-userns", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
			"--proc", "/proc", "--dev", "/dev",
			"--size", strconv.FormatInt(lim.tmp, 10), "--tmpfs", "/tmp",
			"--clearenv")
		for _, kv := range sl.env(phase) {
			k, v, _ := strings.Cut(kv, "=")
			args = append(args, "--setenv", k, v)
		}
		if phase == "build" {
			args = append(args, "--ro-bind", s.goroot, s.goroot, "--ro-bind", s.module, "/kgviz", "--ro-bind", s.self, "/kgviz-cacheprog",
				"--bind", sl.src, "/src")
			if sl.cache != "" {
				args = append(args, "--bind", sl.cache, "/cache")
			} else {
				args = append(args, "--ro-bind", s.warmBind, "/cache")
			}
			args = append(args, "--chdir", "/src")
		} else {
			args = append(args, "--ro-bind", filepath.Join(sl.src, "answers"), "/answers", "--chdir", "/tmp")
		}
		args = append(args, "--")
		args = append(args, argv...)
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	if s.unsafe {
		cmd.Env = sl.env(phase)
		cmd.Dir = filepath.Join(sl.dir, "src")
	} else {
		cmd.Env = []string{}
		cmd.Dir = sl.dir
	}
	attr := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if inCgroup && s.mem.version == 2 {
		// Born in the slot's cgroup (clone3's CLONE_INTO_CGROUP).
		if f, err := os.Open(sl.cgroup); err == nil {
			sl.open = append(sl.open, f)
			attr.UseCgroupFD, attr.CgroupFD = true, int(f.Fd())
		}
	}
	if s.asRoot {
		attr.Credential = &syscall.Credential{Uid: uint32(sl.uid), Gid: uint32(sl.uid), Groups: []uint32{}}
	}
	cmd.SysProcAttr = attr
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 2 * time.Second
	return cmd
}

// killUser kills every process of the slot's uid (when it has one of its
// own): whatever escaped the pid namespace, if anything could.
func (sl *slot) killUser() {
	if !sl.s.asRoot {
		return
	}
	uid := map[int]bool{sl.uid: true}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		pids := processesOf(uid)
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// processesOf lists the live processes (zombies excluded: they are dead,
// waiting for their parent) whose real or effective uid is in uids.
func processesOf(uids map[int]bool) []int {
	var out []int
	dirs, _ := filepath.Glob("/proc/[0-9]*/status")
	for _, st := range dirs {
		data, err := os.ReadFile(st)
		if err != nil {
			continue
		}
		var state string
		for _, line := range strings.Split(string(data), "\n") {
			f := strings.Fields(line)
			if len(f) >= 2 && f[0] == "State:" {
				state = f[1]
			}
			if len(f) >= 3 && f[0] == "Uid:" {
				r, _ := strconv.Atoi(f[1])
				e, _ := strconv.Atoi(f[2])
				if (uids[r] || uids[e]) && state != "Z" && state != "X" {
					pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(st)))
					out = append(out, pid)
				}
				break
			}
		}
	}
	sort.Ints(out)
	return out
}

func (sl *slot) closeFiles() {
	for _, f := range sl.open {
		f.Close()
	}
	sl.open = nil
}

func (sl *slot) remove() {
	sl.killUser()
	sl.closeFiles()
	if sl.cgroup != "" {
		removeCgroup(sl.cgroup)
	}
	makeWritable(sl.dir)
	os.RemoveAll(sl.dir)
}

// makeWritable lets RemoveAll delete read-only trees (the module copy).
func makeWritable(root string) {
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
}

// limitedBuffer keeps the first and the last max/2 bytes written (a panic
// comes at the end of whatever was printed before) and counts them all.
type limitedBuffer struct {
	mu    sync.Mutex
	head  bytes.Buffer
	tail  []byte
	max   int
	total int64
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n0 := len(p)
	b.total += int64(n0)
	half := b.max / 2
	if room := half - b.head.Len(); room > 0 {
		n := min(room, len(p))
		b.head.Write(p[:n])
		p = p[n:]
	}
	if len(p) > 0 {
		b.tail = append(b.tail, p...)
		if len(b.tail) > half {
			b.tail = append([]byte(nil), b.tail[len(b.tail)-half:]...)
		}
	}
	return n0, nil
}

func (b *limitedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.total > int64(b.head.Len()+len(b.tail)) {
		return b.head.String() + "\n…\n" + string(b.tail)
	}
	return b.head.String() + string(b.tail)
}

func (b *limitedBuffer) Total() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total
}
