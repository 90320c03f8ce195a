package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The manifests of docs/grading-at-scale.md (deploy/), checked for the
// fields that matter, as kubeconform cannot run here (its schemas come from
// the network): the Indexed Job runs n pods for n shards, each grading the
// shard its JOB_COMPLETION_INDEX names into a folder of its own; its volumes
// and secret are declared; every container has resources; the merge job
// joins the shards' folders; the GitHub matrix lists exactly the shards
// 0..n-1, and its actions are pinned to exact versions. Every flag the
// commands pass is one kgviz grade (or grade merge) has.

func readYAML(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repo(t), path))
	if err != nil {
		t.Fatal(err)
	}
	var docs []map[string]any
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var d map[string]any
		if err := dec.Decode(&d); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			t.Fatalf("%s: %v", path, err)
		}
		docs = append(docs, d)
	}
	return docs
}

// at walks a decoded document: at(d, "spec", "template", 0, "name").
func at(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("%v: not a mapping at %q", path, k)
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				t.Fatalf("%v: no item %d", path, k)
			}
			v = l[k]
		}
	}
	return v
}

func flagsOf(t *testing.T, args ...string) string {
	var out, errw strings.Builder
	run(append(args, "-h"), &out, &errw)
	return errw.String()
}

// checkFlags checks that every -flag of a command line is a flag of the command.
func checkFlags(t *testing.T, where, cmdline, help string) {
	t.Helper()
	for _, m := range regexp.MustCompile(`(?:^|\s)-([a-z][a-z-]*)`).FindAllStringSubmatch(cmdline, -1) {
		if !strings.Contains(help, "  -"+m[1]+" ") && !strings.Contains(help, "  -"+m[1]+"\n") {
			t.Errorf("%s: kgviz has no flag -%s", where, m[1])
		}
	}
}

func TestDeployManifests(t *testing.T) {
	gradeHelp, mergeHelp := flagsOf(t, "grade"), flagsOf(t, "grade", "merge")
	if !strings.Contains(gradeHelp, "-shard") {
		t.Fatalf("grade -h: %s", gradeHelp)
	}
	claims := map[string]bool{}
	for _, d := range readYAML(t, "deploy/k8s/volumes.yaml") {
		if d["apiVersion"] != "v1" || d["kind"] != "PersistentVolumeClaim" {
			t.Errorf("volumes.yaml: %v %v", d["apiVersion"], d["kind"])
		}
		if modes := at(t, d, "spec", "accessModes"); !strings.Contains(strings.Join(toStrings(modes), " "), "ReadWriteMany") {
			t.Errorf("volumes.yaml: %v: access modes %v (the shards' pods share it)", at(t, d, "metadata", "name"), modes)
		}
		claims[at(t, d, "metadata", "name").(string)] = true
	}
	checkPod := func(file string, job map[string]any) (container map[string]any, env map[string]string) {
		pod := at(t, job, "spec", "template", "spec")
		if rp := at(t, pod, "restartPolicy"); rp != "Never" && rp != "OnFailure" {
			t.Errorf("%s: restartPolicy %v", file, rp)
		}
		volumes := map[string]bool{}
		for _, v := range at(t, pod, "volumes").([]any) {
			name := at(t, v, "name").(string)
			volumes[name] = true
			if c := at(t, v, "persistentVolumeClaim", "claimName"); !claims[c.(string)] {
				t.Errorf("%s: volume %s claims %v, which volumes.yaml does not declare", file, name, c)
			}
		}
		containers := at(t, pod, "containers").([]any)
		if len(containers) != 1 {
			t.Fatalf("%s: %d containers", file, len(containers))
		}
		c := containers[0].(map[string]any)
		for _, m := range at(t, c, "volumeMounts").([]any) {
			if !volumes[at(t, m, "name").(string)] {
				t.Errorf("%s: mount of an undeclared volume %v", file, at(t, m, "name"))
			}
		}
		for _, kind := range []string{"requests", "limits"} {
			for _, r := range []string{"cpu", "memory"} {
				if at(t, c, "resources", kind, r) == nil {
					t.Errorf("%s: no resources.%s.%s", file, kind, r)
				}
			}
		}
		env = map[string]string{}
		if e, ok := c["env"].([]any); ok {
			for _, kv := range e {
				name := at(t, kv, "name").(string)
				if v, ok := kv.(map[string]any)["value"].(string); ok {
					env[name] = v
				} else {
					env[name] = "<from " + strings.Join(mapKeys(at(t, kv, "valueFrom")), ",") + ">"
				}
			}
		}
		return c, env
	}
	jobs := readYAML(t, "deploy/k8s/grade-job.yaml")
	if len(jobs) != 1 {
		t.Fatalf("grade-job.yaml: %d documents", len(jobs))
	}
	job := jobs[0]
	if job["apiVersion"] != "batch/v1" || job["kind"] != "Job" || at(t, job, "spec", "completionMode") != "Indexed" {
		t.Errorf("grade-job.yaml: %v %v completionMode %v", job["apiVersion"], job["kind"], at(t, job, "spec", "completionMode"))
	}
	c, env := checkPod("grade-job.yaml", job)
	n, err := strconv.Atoi(env["SHARDS"])
	completions, parallelism := at(t, job, "spec", "completions"), at(t, job, "spec", "parallelism")
	if err != nil || completions != n || parallelism != n {
		t.Errorf("grade-job.yaml: completions %v, parallelism %v, SHARDS %q: one pod per shard", completions, parallelism, env["SHARDS"])
	}
	if env["KGVIZ_GRADE_KEY"] != "<from secretKeyRef>" {
		t.Errorf("grade-job.yaml: the key must come from a Secret, not %q", env["KGVIZ_GRADE_KEY"])
	}
	cmd := strings.Join(append(toStrings(c["command"]), toStrings(c["args"])...), " ")
	checkFlags(t, "grade-job.yaml", strings.SplitN(cmd, " grade ", 2)[1], gradeHelp)
	// What pod i runs: its shard, into a folder of its own.
	outs := map[string]bool{}
	for i := 0; i < n; i++ {
		line := strings.NewReplacer("$JOB_COMPLETION_INDEX", strconv.Itoa(i), "$SHARDS", env["SHARDS"], `"`, "").Replace(cmd)
		m := regexp.MustCompile(`-shard (\S+)`).FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("grade-job.yaml: no -shard in %q", cmd)
		}
		if si, sn, err := parseShard(m[1]); err != nil || si != i || sn != n {
			t.Errorf("grade-job.yaml: pod %d runs -shard %s (%v)", i, m[1], err)
		}
		out := regexp.MustCompile(`-out (\S+)`).FindStringSubmatch(line)
		if out == nil || outs[out[1]] {
			t.Errorf("grade-job.yaml: pod %d writes to %v, not a folder of its own", i, out)
		} else {
			outs[out[1]] = true
		}
	}
	merge := readYAML(t, "deploy/k8s/merge-job.yaml")[0]
	if merge["apiVersion"] != "batch/v1" || merge["kind"] != "Job" {
		t.Errorf("merge-job.yaml: %v %v", merge["apiVersion"], merge["kind"])
	}
	mc, _ := checkPod("merge-job.yaml", merge)
	mcmd := strings.Join(append(toStrings(mc["command"]), toStrings(mc["args"])...), " ")
	if !strings.Contains(mcmd, "kgviz grade merge") || !strings.Contains(mcmd, "/results/shard-*") {
		t.Errorf("merge-job.yaml runs %q", mcmd)
	}
	checkFlags(t, "merge-job.yaml", strings.SplitN(mcmd, " merge ", 2)[1], mergeHelp)

	// The GitHub Actions matrix.
	wf := readYAML(t, "deploy/github/grade.yml")[0]
	sn, _ := strconv.Atoi(at(t, wf, "env", "SHARDS").(string))
	shards := at(t, wf, "jobs", "grade", "strategy", "matrix", "shard").([]any)
	if len(shards) != sn || sn < 2 {
		t.Errorf("grade.yml: matrix %v for SHARDS %d", shards, sn)
	}
	for i, s := range shards {
		if s != i {
			t.Errorf("grade.yml: matrix item %d is %v", i, s)
		}
	}
	if needs := at(t, wf, "jobs", "merge", "needs"); needs != "grade" {
		t.Errorf("grade.yml: merge needs %v", needs)
	}
	var runs []string
	for _, job := range []string{"grade", "merge"} {
		for _, st := range at(t, wf, "jobs", job, "steps").([]any) {
			m := st.(map[string]any)
			if uses, ok := m["uses"].(string); ok && !regexp.MustCompile(`^actions/[a-z-]+@v\d+\.\d+\.\d+$`).MatchString(uses) {
				t.Errorf("grade.yml: %s is not pinned to an exact version", uses)
			}
			if r, ok := m["run"].(string); ok {
				runs = append(runs, r)
			}
		}
	}
	all := strings.Join(runs, "\n")
	gradeLine := regexp.MustCompile(`kgviz grade [^\n]*`).FindString(strings.ReplaceAll(all, "\\\n", " "))
	if gradeLine == "" {
		t.Fatalf("grade.yml runs no kgviz grade:\n%s", all)
	}
	if !strings.Contains(all, `-shard "${{ matrix.shard }}/$SHARDS"`) || !strings.Contains(all, "grade merge") || !strings.Contains(all, "KGVIZ_GRADE_KEY") {
		t.Errorf("grade.yml runs:\n%s", all)
	}
	checkFlags(t, "grade.yml", strings.SplitN(gradeLine, " grade ", 2)[1], gradeHelp)
	if strings.Contains(all, "${{ secrets.KGVIZ_GRADE_KEY }}") {
		t.Errorf("grade.yml: the key is written into a command line")
	}
}

func toStrings(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, x := range l {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

func mapKeys(v any) []string {
	m, _ := v.(map[string]any)
	return sortedKeys(m)
}
