#!/usr/bin/env bash
# Stop the daemons start_slurm.sh started and remove the files it created, as recorded in
# $SLURM_DIR/started ("name pid") and $SLURM_DIR/created; a daemon or file that was there
# before start_slurm.sh ran is not recorded and is left alone. Packages stay installed.
SLURM_DIR=${SLURM_DIR:-/tmp/ufsbench-slurm}
STARTED="$SLURM_DIR/started"
if [ -s "$STARTED" ]; then
  # newest first: slurmd, slurmctld, then munged
  pids=()
  while read -r name pid; do
    # only a process that still has the recorded name (pids are reused)
    if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$name" ]; then
      kill "$pid" 2>/dev/null && pids+=("$pid") && echo "stopped $name ($pid)"
    fi
  done < <(tac "$STARTED")
  for _ in $(seq 1 100); do
    alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.1
  done
fi
if [ -s "$SLURM_DIR/created" ]; then
  while read -r path; do rm -f -- "$path" && echo "removed $path"; done < "$SLURM_DIR/created"
fi
rm -f "$STARTED" "$SLURM_DIR/created"
exit 0
