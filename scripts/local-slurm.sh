#!/usr/bin/env bash
# local-slurm.sh: a real, one-node SLURM on a developer machine or a CI runner, to try and test
# `textlab run STUDY.toml --out DIR --cluster slurm ...` (Dask workers started as SLURM jobs) without
# a cluster. This computer is the controller (slurmctld) and the only compute node (slurmd), in one
# partition "debug"; jobs run as the user who submits them.
#
# Needs root and Debian or Ubuntu (apt-get): it installs slurm-wlm and munge if they are missing,
# writes /etc/slurm/slurm.conf (only if that file is absent or was written by this script) and starts
# munged, slurmctld and slurmd directly as background daemons (no systemd needed, so it works in a
# container). No cgroups, no accounting database.
#
#     sudo scripts/local-slurm.sh [start]   # install, configure, start, wait until the node is idle
#     sudo scripts/local-slurm.sh status    # the daemons, sinfo and squeue
#     sudo scripts/local-slurm.sh stop      # stop the three daemons (configuration and packages stay)
#
# `start` is idempotent: daemons that already run are left alone; if the configuration changed,
# slurmctld and slurmd are restarted. Then e.g.: sbatch --wrap hostname; squeue; sinfo.
# Logs: /var/log/slurm/slurmctld.log, /var/log/slurm/slurmd.log, /var/log/munge/munged.log.

set -euo pipefail

CONF_DIR=/etc/slurm
CONF="$CONF_DIR/slurm.conf"
CGROUP_CONF="$CONF_DIR/cgroup.conf"
MARKER="# Written by TextLab's scripts/local-slurm.sh"
LOG_DIR=/var/log/slurm
STATE_DIR=/var/spool/slurmctld
SPOOL_DIR=/var/spool/slurmd
CTLD_PID=/run/slurmctld.pid
SLURMD_PID=/run/slurmd.pid
MUNGE_KEY=/etc/munge/munge.key
MUNGE_RUN=/run/munge
MUNGE_PID="$MUNGE_RUN/munged.pid"
WAIT_SECONDS=${LOCAL_SLURM_WAIT:-60}

NODE=$(hostname -s)

say() { printf 'local-slurm: %s\n' "$*"; }
fail() { printf 'local-slurm: error: %s\n' "$*" >&2; exit 1; }

need_root() {
    [ "$(id -u)" -eq 0 ] || fail "this needs root (it installs packages and starts system daemons); run it with sudo."
}

# The pid in FILE if that process is alive, else nothing.
running_pid() {
    local file=$1 pid
    [ -s "$file" ] || return 1
    pid=$(cat "$file" 2>/dev/null) || return 1
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && { echo "$pid"; return 0; }
    return 1
}

install_packages() {
    local missing=()
    [ -x /usr/sbin/munged ] || missing+=(munge)
    if [ ! -x /usr/sbin/slurmctld ] || [ ! -x /usr/sbin/slurmd ] || ! command -v sbatch >/dev/null 2>&1; then
        missing+=(slurm-wlm)
    fi
    if [ ${#missing[@]} -eq 0 ]; then
        return
    fi
    command -v apt-get >/dev/null 2>&1 || fail "${missing[*]} missing and apt-get not found: this script is for Debian or Ubuntu."
    say "installing ${missing[*]} (apt-get) ..."
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# slurm.conf for this one node: its short hostname, its CPUs, its memory less a margin.
write_config() {
    local cpus mem_mb real_mb margin new
    cpus=$(nproc)
    mem_mb=$(( $(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 1024 ))
    margin=$(( mem_mb / 20 ))                      # 5 %, at least 512 MB: slurmd drains a node
    [ "$margin" -lt 512 ] && margin=512            # that has less memory than RealMemory
    real_mb=$(( mem_mb - margin ))
    [ "$real_mb" -lt 256 ] && real_mb=256

    if [ -e "$CONF" ] && ! grep -qF "$MARKER" "$CONF"; then
        fail "$CONF exists and was not written by this script; not overwriting it (move it away to use this script)."
    fi
    mkdir -p "$CONF_DIR" "$LOG_DIR" "$STATE_DIR" "$SPOOL_DIR"

    new=$(cat <<EOF
$MARKER: a one-node SLURM for trying
# and testing TextLab's --cluster slurm. Rewritten on every start; delete it to use your own.
ClusterName=textlab-local
SlurmctldHost=$NODE
SlurmUser=root
SlurmdUser=root
SlurmctldPort=6817
SlurmdPort=6818
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$STATE_DIR
SlurmdSpoolDir=$SPOOL_DIR
SlurmctldPidFile=$CTLD_PID
SlurmdPidFile=$SLURMD_PID
SlurmctldLogFile=$LOG_DIR/slurmctld.log
SlurmdLogFile=$LOG_DIR/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# no cgroups (containers, CI runners): plain process tracking, no task binding
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
SlurmctldTimeout=60
SlurmdTimeout=60
InactiveLimit=0
MinJobAge=300
KillWait=10
Waittime=0
NodeName=$NODE CPUs=$cpus RealMemory=$real_mb State=UNKNOWN
PartitionName=debug Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
)
    if [ -f "$CONF" ] && [ "$(cat "$CONF")" = "$new" ]; then
        CONFIG_CHANGED=0
    else
        printf '%s\n' "$new" > "$CONF"
        chmod 0644 "$CONF"
        CONFIG_CHANGED=1
        say "wrote $CONF (node $NODE, $cpus CPUs, RealMemory=${real_mb} MB, partition debug)"
    fi
    # slurmd reads cgroup.conf when present; keep one that does not ask for cgroup mounts.
    if [ ! -e "$CGROUP_CONF" ] || grep -qF "$MARKER" "$CGROUP_CONF"; then
        printf '%s\nCgroupAutomount=no\nConstrainCores=no\nConstrainRAMSpace=no\n' "$MARKER" > "$CGROUP_CONF"
    fi
}

start_munge() {
    if [ ! -s "$MUNGE_KEY" ]; then
        say "creating a munge key in $MUNGE_KEY"
        mkdir -p "$(dirname "$MUNGE_KEY")"
        if command -v mungekey >/dev/null 2>&1; then
            mungekey --create --keyfile="$MUNGE_KEY" --force
        else
            dd if=/dev/urandom bs=1 count=1024 of="$MUNGE_KEY" status=none
        fi
    fi
    chown munge:munge "$(dirname "$MUNGE_KEY")" "$MUNGE_KEY"
    chmod 0700 "$(dirname "$MUNGE_KEY")"
    chmod 0400 "$MUNGE_KEY"
    mkdir -p "$MUNGE_RUN" /var/log/munge /var/lib/munge
    chown munge:munge "$MUNGE_RUN" /var/log/munge /var/lib/munge
    chmod 0755 "$MUNGE_RUN"

    if pid=$(running_pid "$MUNGE_PID"); then
        say "munged already running (pid $pid)"
    else
        say "starting munged"
        rm -f "$MUNGE_RUN"/munge.socket.2* "$MUNGE_PID"
        runuser -u munge -- /usr/sbin/munged
    fi
    local _
    for _ in $(seq 1 20); do
        munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1 && return 0
        sleep 0.5
    done
    fail "munge does not work (munge -n | unmunge fails); see /var/log/munge/munged.log"
}

start_daemon() {  # NAME PIDFILE COMMAND...
    local name=$1 pidfile=$2 pid
    shift 2
    if pid=$(running_pid "$pidfile"); then
        if [ "$CONFIG_CHANGED" -eq 1 ]; then
            say "configuration changed: restarting $name (pid $pid)"
            stop_daemon "$name" "$pidfile"
        else
            say "$name already running (pid $pid)"
            return 0
        fi
    fi
    say "starting $name"
    "$@" || fail "$name did not start; see $LOG_DIR/$name.log"
    local _
    for _ in $(seq 1 20); do
        running_pid "$pidfile" >/dev/null && return 0
        sleep 0.5
    done
    fail "$name exited right after starting; the end of $LOG_DIR/$name.log:
$(tail -n 15 "$LOG_DIR/$name.log" 2>/dev/null)"
}

stop_daemon() {  # NAME PIDFILE
    local name=$1 pidfile=$2 pid _
    if ! pid=$(running_pid "$pidfile"); then
        say "$name is not running"
        rm -f "$pidfile"
        return 0
    fi
    say "stopping $name (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 30); do
        kill -0 "$pid" 2>/dev/null || { rm -f "$pidfile"; return 0; }
        sleep 0.5
    done
    say "$name did not stop in 15 s; killing it"
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$pidfile"
}

node_state() {
    sinfo -h -n "$NODE" -o %T 2>/dev/null | head -n 1 | tr -d '*~#!%$@^-'
}

wait_for_idle_node() {
    local state="" resumed=0 _
    for _ in $(seq 1 "$WAIT_SECONDS"); do
        state=$(node_state || true)
        case "$state" in
            idle|mixed|allocated|completing)
                say "node $NODE is $state: SLURM is ready (partition debug; try: sbatch --wrap hostname)"
                return 0 ;;
            down|drained|draining|drain|fail|failing)
                if [ "$resumed" -eq 0 ]; then
                    say "node $NODE is $state ($(sinfo -h -n "$NODE" -o %E 2>/dev/null)); resuming it"
                    scontrol update NodeName="$NODE" State=RESUME 2>/dev/null || true
                    resumed=1
                fi ;;
        esac
        sleep 1
    done
    sinfo -N -l 2>&1 || true
    fail "node $NODE is not idle after ${WAIT_SECONDS} s (state '${state:-unknown}'); see $LOG_DIR/slurmctld.log and $LOG_DIR/slurmd.log"
}

do_start() {
    need_root
    install_packages
    CONFIG_CHANGED=0
    write_config
    start_munge
    start_daemon slurmctld "$CTLD_PID" /usr/sbin/slurmctld
    start_daemon slurmd "$SLURMD_PID" /usr/sbin/slurmd -N "$NODE"
    wait_for_idle_node
}

do_stop() {
    need_root
    stop_daemon slurmd "$SLURMD_PID"
    stop_daemon slurmctld "$CTLD_PID"
    stop_daemon munged "$MUNGE_PID"
}

do_status() {
    local name pidfile pid code=0
    for name in munged:"$MUNGE_PID" slurmctld:"$CTLD_PID" slurmd:"$SLURMD_PID"; do
        pidfile=${name#*:}
        if pid=$(running_pid "$pidfile"); then
            say "${name%%:*}: running (pid $pid)"
        else
            say "${name%%:*}: not running"
            code=1
        fi
    done
    if command -v sinfo >/dev/null 2>&1 && [ "$code" -eq 0 ]; then
        sinfo || code=1
        squeue || code=1
    fi
    return "$code"
}

case "${1:-start}" in
    start) do_start ;;
    stop) do_stop ;;
    status) do_status ;;
    -h|--help|help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//' ;;
    *) fail "unknown command '$1' (use start, stop or status)" ;;
esac
