"""What the CLI test scripts share: the command line under test (argv: CLI [RUNNER...]), checks that
count, running a command, and an expected error (exit code, one stderr line naming the field, no output)."""
import subprocess
import sys

cli = sys.argv[1:]
failures = []
counts = {"passed": 0}


def check(cond, what):
    if cond:
        counts["passed"] += 1
    else:
        failures.append(what)
        print("FAIL:", what)


def run(args, stdin=None):
    p = subprocess.run(cli + args, input=stdin, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def expect_error(args, field, stdin=None, code=2):
    rc, out, err = run(args, stdin)
    lines = err.strip().split("\n")
    check(rc == code, f"{args} {stdin!r}: exit {rc}, expected {code} ({err.strip()})")
    check(len(lines) == 1 and field in err, f"{args} {stdin!r}: stderr {err.strip()!r} should be one line naming {field}")
    check(out == "", f"{args} {stdin!r}: printed output despite the error")


def finish():
    print(f"{counts['passed']} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)
