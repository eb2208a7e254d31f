# Shared settings for the single-node SLURM test cluster (sourced by up.sh / down.sh / env.sh).
#
# Everything the cluster writes lives under one state directory, so a test run never touches
# /etc/slurm or a site's own SLURM. Clients find the cluster through SLURM_CONF, which env.sh
# exports. Override any of these in the environment before calling the scripts.

SATDOKU_SLURM_DIR="${SATDOKU_SLURM_DIR:-/tmp/satdoku-slurm}"
SATDOKU_SLURM_CLUSTER="${SATDOKU_SLURM_CLUSTER:-satdoku}"
SATDOKU_SLURM_ACCOUNT="${SATDOKU_SLURM_ACCOUNT:-satdoku}"
SATDOKU_SLURM_PARTITION="${SATDOKU_SLURM_PARTITION:-debug}"
SATDOKU_SLURMCTLD_PORT="${SATDOKU_SLURMCTLD_PORT:-6817}"
SATDOKU_SLURMD_PORT="${SATDOKU_SLURMD_PORT:-6818}"
SATDOKU_SLURMDBD_PORT="${SATDOKU_SLURMDBD_PORT:-6819}"
SATDOKU_MARIADB_PORT="${SATDOKU_MARIADB_PORT:-3307}"

SLURM_PACKAGES=(slurmctld slurmd slurm-client munge slurmdbd mariadb-server)

ETC_DIR="$SATDOKU_SLURM_DIR/etc"        # slurm.conf, slurmdbd.conf
RUN_DIR="$SATDOKU_SLURM_DIR/run"        # pidfiles the daemons write themselves
LOG_DIR="$SATDOKU_SLURM_DIR/log"        # daemon logs
STARTED_DIR="$SATDOKU_SLURM_DIR/started" # <name>.pid: PIDs *we* started (teardown uses only these)
DB_DIR="$SATDOKU_SLURM_DIR/mariadb"
DB_SOCKET="$RUN_DIR/mariadbd.sock"
DEFAULT_CONF="/etc/slurm/slurm.conf"  # a symlink to ours while the cluster is up (see up.sh)
MUNGE_SOCKET="/run/munge/munge.socket.2"

# Start order; teardown walks it backwards.
DAEMONS=(munged mariadbd slurmdbd slurmctld slurmd)

export SLURM_CONF="$ETC_DIR/slurm.conf"

log() { printf '[slurm %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# True while process $1 exists and is not a zombie (pid 1 here may reap its orphans late).
pid_alive() {
    [[ "$1" =~ ^[0-9]+$ ]] || return 1
    [[ -e "/proc/$1" ]] || return 1
    [[ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]]
}

# Echo the PID we recorded for daemon $1 if that process is still alive and still runs the
# program we started (guards against a recycled PID); return 1 otherwise.
started_pid() {
    local name="$1" pidfile="$STARTED_DIR/$1.pid" pid comm
    [[ -f "$pidfile" ]] || return 1
    pid="$(cat "$pidfile")"
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    pid_alive "$pid" || return 1
    comm="$(cat "/proc/$pid/comm" 2>/dev/null || true)"
    [[ "$comm" == "$name" ]] || return 1
    echo "$pid"
}
