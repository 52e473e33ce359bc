# Sourced by the fault scripts (from the repository root).
# remove_work_on_pass RC DIR: a passing run (RC 0) leaves nothing behind; a failing one keeps DIR as its evidence.
# KEEP_WORK=1 keeps it always.
remove_work_on_pass() {
  if [ "$1" = 0 ] && [ -z "${KEEP_WORK:-}" ]; then rm -rf "$2"; echo "work directory removed (KEEP_WORK=1 keeps it)" >&2; fi
}
