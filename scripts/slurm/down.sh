#!/usr/bin/env bash
# Tear down the test cluster started by up.sh: cancel its jobs, stop every daemon up.sh started
# -- by the PID it recorded, never by name -- and remove the pidfiles the daemons leave behind
# (slurmctld and slurmdbd keep theirs after SIGTERM). A daemon up.sh merely reused (a munged that
# was already running) is left alone. Logs stay in $SATDOKU_SLURM_DIR/log unless --purge is given.
#
# Usage: down.sh [--purge] [--quiet]
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=common.sh
source "$HERE/common.sh"

PURGE=0
QUIET=0
for arg in "$@"; do
    case "$arg" in
        --purge) PURGE=1 ;;
        --quiet) QUIET=1 ;;
        *) die "unknown argument: $arg (usage: down.sh [--purge] [--quiet])" ;;
    esac
done
say() { ((QUIET)) || log "$@"; }

# stop NAME...: SIGTERM the recorded PIDs together, wait up to 15 s, then SIGKILL what is left.
stop() {
    local name pid i
    local -A pids=()
    for name in "$@"; do
        if pid="$(started_pid "$name")"; then
            pids[$name]="$pid"
            kill -TERM "$pid" 2>/dev/null || true
        else
            rm -f "$STARTED_DIR/$name.pid"
        fi
    done
    for name in "${!pids[@]}"; do
        pid="${pids[$name]}"
        for ((i = 0; i < 150; i++)); do
            pid_alive "$pid" || break
            sleep 0.1
        done
        if pid_alive "$pid"; then
            say "$name (pid $pid) ignored SIGTERM for 15 s; sending SIGKILL"
            kill -KILL "$pid" 2>/dev/null || true
            for ((i = 0; i < 50; i++)); do
                pid_alive "$pid" || break
                sleep 0.1
            done
        fi
        rm -f "$STARTED_DIR/$name.pid"
        say "stopped $name (pid $pid)"
    done
}

main() {
    [[ -d "$SATDOKU_SLURM_DIR" ]] || { say "nothing to stop ($SATDOKU_SLURM_DIR absent)"; return; }
    # Jobs first, while slurmctld still runs, so no slurmstepd outlives the cluster.
    if started_pid slurmctld >/dev/null; then
        local jobs
        jobs="$(squeue -h -o %i 2>/dev/null || true)"
        if [[ -n "$jobs" ]]; then
            say "cancelling jobs: $(echo "$jobs" | tr '\n' ' ')"
            # shellcheck disable=SC2086
            scancel $jobs 2>/dev/null || true
            for ((i = 0; i < 100; i++)); do
                [[ -z "$(squeue -h -o %i 2>/dev/null || true)" ]] && break
                sleep 0.1
            done
        fi
    fi
    # SLURM daemons first (slurmctld reports its shutdown to slurmdbd), then the services below.
    stop slurmd slurmctld
    stop slurmdbd mariadbd munged
    # Pidfiles the daemons wrote themselves (slurmctld/slurmdbd leave them after SIGTERM).
    rm -f "$RUN_DIR"/*.pid
    if [[ -L "$DEFAULT_CONF" && "$(readlink "$DEFAULT_CONF")" == "$SLURM_CONF" ]]; then
        rm -f "$DEFAULT_CONF"
    fi
    if [[ -f /run/munge/munged.pid ]] && ! pid_alive "$(cat /run/munge/munged.pid)"; then
        rm -f /run/munge/munged.pid
    fi
    if ((PURGE)); then
        rm -rf "$SATDOKU_SLURM_DIR"
        say "purged $SATDOKU_SLURM_DIR"
    fi
}

main
