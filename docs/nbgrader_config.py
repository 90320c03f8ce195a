# nbgrader configuration for the kgviz course (GoNB kernel, language "go").
# Copy it next to your nbgrader course directory, or merge it into your own nbgrader_config.py.
#
# What nbgrader's autograder protects here: locked check cells are restored from its database when a student
# edits or deletes them, and points come from that database (extra "graded" cells and changed points do not
# count). What it does not: the student's code and the check run in one GoNB kernel, with the student's rights,
# on the public scenarios only, so os.Exit or runtime.Goexit in an answer, an init() function, a fake `exercises`
# variable or package, `!` shell commands (which can rewrite exercises/ for every later submission), reading
# solutions/ or other submissions, and processes left running all work. For the points, run `kgviz grade`
# (README, "Grading a class"): it builds the answer cells alone in a sandbox, judges them from the grader on
# secret scenarios, and reads nothing else of the notebook.
c = get_config()  # noqa: F821 (provided by nbgrader)

# solutions/ is the source version: every answer cell marks its body with
#     // BEGIN SOLUTION
#     // END SOLUTION
# `nbgrader generate_assignment` replaces that region with this stub. It sits inside a function body,
# so the cell still compiles; the check cell then fails with a clear message instead of a wrong answer.
c.ClearSolutions.begin_solution_delimeter = "BEGIN SOLUTION"
c.ClearSolutions.end_solution_delimeter = "END SOLUTION"
c.ClearSolutions.code_stub = {
    "go": '// YOUR CODE HERE\npanic("not implemented")',
}

# nbgrader scores a test cell 0 when it writes to stderr: kgviz and its checks never do when an answer is
# right (a wrong answer prints its verdict on stdout and exits with status 1, which GoNB reports as an error).
c.Execute.timeout = 300          # seconds per cell; the first cell of a cold kernel builds the Go cache
c.Execute.allow_errors = True    # run the whole notebook even when one exercise fails
