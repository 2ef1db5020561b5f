#!/usr/bin/env bash
# A test cluster on one machine: N "nodes", each its own network namespace (a veth pair on a bridge, a private
# address made inside this machine only) and its own host name (a UTS namespace), each running a slurmd of one
# Slurm cluster whose slurmctld and munge run beside the bridge, as scripts/slurm-local.sh runs them. Open MPI
# between the nodes goes over TCP on the bridge. For `faultline run --launcher slurm` and its tests.
#   scripts/cluster-local.sh start N DIR   start it (nodes node1..nodeN); prints the line to eval: export
#                                          SLURM_CONF=DIR/slurm.conf FAULTLINE_CLUSTER=DIR FAULTLINE_NODE_KILL=...
#                                          (a node it kills is repaired FL_CLUSTER_REPAIR_S seconds later, default 10)
#                                          OMPI_MCA_{btl,oob}_tcp_if_include=(the cluster's network)
#                                          OMPI_MCA_plm_rsh_agent=DIR/rsh OMPI_MCA_plm_rsh_no_tree_spawn=1
#   scripts/cluster-local.sh kill-node DIR [--repair-after S] NODE   a node failure: its link taken down, its
#                                          node-local directory (DIR/local/NODE) removed, every process on it killed;
#                                          with --repair-after, back in service S seconds later (revive-node)
#   scripts/cluster-local.sh revive-node DIR NODE a killed node back: its link up, its slurmd started, idle again
#   scripts/cluster-local.sh exec DIR NODE CMD... run CMD on NODE (inside its namespaces), as ssh would; DIR/rsh
#                                          does it as `ssh NODE CMD` would: Open MPI's remote shell (in the eval line),
#                                          so that `mpirun --hostfile` starts its daemons on the nodes from here
#   scripts/cluster-local.sh stop DIR      kill every process it started and remove the namespaces and the bridge
#                                          (DIR stays: its logs)
# Exit 77 when Slurm, munge or iproute2 is missing or this is not root (the tests report that as skipped).
set -euo pipefail
. "$(dirname "$0")/slurm-common.sh"
cmd=${1:-}
usage() {
  echo "usage: $0 start N DIR | stop DIR | kill-node DIR [--repair-after S] NODE | revive-node DIR NODE | exec DIR NODE CMD..." >&2
  exit 2
}
[ -n "$cmd" ] || usage

# Names and addresses derive from DIR's absolute path, so two clusters (two test directories) do not collide.
names() { # DIR -> sets dir id br net
  dir=$(cd "$1" && pwd)
  id=$(( $(printf '%s' "$dir" | cksum | cut -d' ' -f1) % 200 + 20 ))
  br="flbr$id"
  net="10.213.$id"
}
ns_of() { echo "fl${id}$1"; } # node name -> namespace
# Run a command on a node: its network namespace, its host name, its /etc/hosts (the cluster's names) and its own
# run directory (DIR/run/NODE seen as DIR/run: slurmd's pid file), in a private mount namespace. (Not `ip netns
# exec`, which remounts /sys and so hides the cgroup file systems slurmd needs.)
on_node() { # NODE CMD...
  local node=$1
  shift
  nsenter --net="/run/netns/$(ns_of "$node")" unshare --uts --mount sh -c \
    'hostname "$1"; mount --bind "$2/hosts" /etc/hosts; mount --bind "$2/run/$1" "$2/run"; shift 2; exec "$@"' \
    sh "$node" "$dir" "$@"
}

stop_cluster() {
  names "$1"
  local n
  if [ -f "$dir/nodes" ]; then
    while read -r n; do
      local ns
      ns=$(ns_of "$n")
      if ip netns list 2>/dev/null | grep -qw "$ns"; then
        ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
        ip netns del "$ns" 2>/dev/null || true
      fi
      ip link del "v$id$n" 2>/dev/null || true
      rm -f /dev/shm/vader_segment."$n".* # Open MPI's shared memory of the node's processes that were killed
    done <"$dir/nodes"
  fi
  pkill -f "cluster-local.sh $dir " 2>/dev/null || true # repairs still to come (kill-node --repair-after)
  for f in slurmctld.pid munge/munged.pid; do
    [ -f "$dir/$f" ] && kill "$(cat "$dir/$f")" 2>/dev/null || true
  done
  ip link del "$br" 2>/dev/null || true
  sleep 0.5
}

case "$cmd" in
  stop)
    [ -n "${2:-}" ] && [ -d "$2" ] || usage
    stop_cluster "$2"
    exit 0
    ;;
  kill-node)
    [ -n "${2:-}" ] && [ -n "${3:-}" ] || usage
    names "$2"
    repair=""
    if [ "$3" = --repair-after ]; then
      repair=${4:-}
      case "$repair" in '' | *[!0-9]*) echo "$0: --repair-after '$repair': whole seconds" >&2; exit 2 ;; esac
      shift 2
    fi
    ns=$(ns_of "$3")
    ip netns list | grep -qw "$ns" || { echo "$0: no node '$3' in the cluster in $dir" >&2; exit 2; }
    # its link first (fenced: nothing it still sends arrives), its local storage, then every process on it
    ip netns exec "$ns" ip link set eth0 down
    rm -rf "${dir:?}/local/$3"
    echo "$3 $(date +%s.%N)" >>"$dir/killed"
    # every process on it but this script (which a process of that node may have run: the shell's own kill, so no
    # helper process of ours is among the killed or the killers)
    for p in $(ip netns pids "$ns"); do
      [ "$p" = "$$" ] || kill -9 "$p" 2>/dev/null || true
    done
    if [ -n "$repair" ]; then # back in service that much later
      setsid -f sh -c 'sleep "$1"; "$2" revive-node "$3" "$4"' sh "$repair" \
        "$(cd "$(dirname "$0")" && pwd)/cluster-local.sh" "$dir" "$3" >/dev/null 2>&1 </dev/null
    fi
    exit 0
    ;;
  revive-node)
    # a node back in service (after kill-node): its link up, its slurmd started, idle again in Slurm
    [ -n "${2:-}" ] && [ -n "${3:-}" ] || usage
    names "$2"
    ns=$(ns_of "$3")
    ip netns list | grep -qw "$ns" || { echo "$0: no node '$3' in the cluster in $dir" >&2; exit 2; }
    ip netns exec "$ns" ip link set eth0 up
    mkdir -p "$dir/local/$3"
    export SLURM_CONF="$dir/slurm.conf"
    # its slurmd, unless one runs there already (a node revived twice: never kill what runs on it)
    ip netns pids "$ns" | xargs -r ps -o comm= -p 2>/dev/null | grep -qx slurmd || on_node "$3" /usr/sbin/slurmd
    for _ in $(seq 1 120); do
      state=$(sinfo -h -n "$3" -o %t 2>/dev/null || true)
      [ -z "${FL_CLUSTER_DEBUG:-}" ] || echo "$(date +%T) $state" >&2
      case "$state" in # responding again (no '*'), and in service: a job still completing there ends soon
        idle | mix | alloc | comp) exit 0 ;;
      esac
      [ "$state" = "down" ] || [ "$state" = "down*" ] && scontrol update nodename="$3" state=resume 2>/dev/null || true
      sleep 0.5
    done
    echo "$0: node '$3' did not come back (state '$state'; logs in $dir/log)" >&2
    exit 1
    ;;
  exec)
    [ -n "${2:-}" ] && [ -n "${3:-}" ] || usage
    names "$2"
    node=$3
    shift 3
    on_node "$node" sh -c "$*" # as ssh runs a command: its words joined into one shell command line
    exit $?
    ;;
  start) ;;
  *) usage ;;
esac

N=${2:-}
[ -n "$N" ] && [ -n "${3:-}" ] || usage
case "$N" in '' | *[!0-9]* | 0*) echo "$0: N '$N': a whole number of nodes, 1 to 32" >&2; exit 2 ;; esac
[ "$N" -le 32 ] || { echo "$0: N '$N': a whole number of nodes, 1 to 32" >&2; exit 2; }
for b in munged slurmctld slurmd sbatch ip unshare nsenter; do
  command -v "$b" >/dev/null 2>&1 || [ -x "/usr/sbin/$b" ] || { echo "$0: $b not installed (slurm-wlm, munge, iproute2)" >&2; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "$0: network namespaces and slurmd need root" >&2; exit 77; }
mkdir -p "$3"
names "$3"
ip netns add "fl${id}probe" 2>/dev/null || { echo "$0: cannot create a network namespace here" >&2; exit 77; }
ip netns del "fl${id}probe"
[ ! -f "$dir/nodes" ] || stop_cluster "$dir"
mkdir -p "$dir"/{state,spool,log,munge,local,run}
seq 1 "$N" | sed 's/^/node/' >"$dir/nodes"

# the bridge, and one namespace per node on it: node i at $net.(i+1), the controller at $net.1
ip link add "$br" type bridge
ip addr add "$net.1/24" dev "$br"
ip link set "$br" up
hosts="127.0.0.1 localhost
$net.1 flhead"
for i in $(seq 1 "$N"); do hosts="$hosts
$net.$((i + 1)) node$i"; done
for i in $(seq 1 "$N"); do
  n=node$i
  ns=$(ns_of "$n")
  ip netns add "$ns"
  mkdir -p "$dir/local/$n" "$dir/spool/$n" "$dir/run/$n"
  ip link add "v$id$n" type veth peer name eth0 netns "$ns"
  ip link set "v$id$n" master "$br" up
  ip netns exec "$ns" ip addr add "$net.$((i + 1))/24" dev eth0
  ip netns exec "$ns" ip link set eth0 up
  ip netns exec "$ns" ip link set lo up
done
printf '%s\n' "$hosts" >"$dir/hosts"

fl_start_munge "$dir"
port=$((20000 + id * 100))
cpus=$(nproc)
fl_slurm_conf "$dir" "flcluster$id" "flhead($net.1)" "$port" "$dir/run/slurmd.pid" "$dir/log/slurmd-%n.log"
cat >>"$dir/slurm.conf" <<CONF
SrunPortRange=$((port + 2))-$((port + 99))
SlurmdTimeout=10
MessageTimeout=5
KillWait=2
CONF
for i in $(seq 1 "$N"); do echo "NodeName=node$i NodeAddr=$net.$((i + 1)) CPUs=$cpus State=UNKNOWN" >>"$dir/slurm.conf"; done
echo "PartitionName=local Nodes=node[1-$N] Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8" >>"$dir/slurm.conf"
export SLURM_CONF="$dir/slurm.conf"
unshare --uts sh -c 'hostname flhead; exec /usr/sbin/slurmctld' # the controller's name, on this machine's network
for i in $(seq 1 "$N"); do on_node "node$i" /usr/sbin/slurmd; done
for _ in $(seq 1 120); do
  if [ "$(sinfo -h -o '%t %D' 2>/dev/null | awk '$1 == "idle" { s += $2 } END { print s + 0 }')" -eq "$N" ]; then
    # what a shell evals: Slurm's configuration, the node-kill command faultline-mpi runs for --kill-node, and
    # Open MPI kept to the cluster's network
    # (and DIR/env: the same, a VAR=VALUE a line, for programs); DIR/rsh: Open MPI's remote shell onto the nodes
    printf '#!/bin/sh\nexec %q exec %q "$@"\n' "$(cd "$(dirname "$0")" && pwd)/cluster-local.sh" "$dir" >"$dir/rsh"
    chmod +x "$dir/rsh"
    printf '%s\n' "SLURM_CONF=$SLURM_CONF" "FAULTLINE_CLUSTER=$dir" "OMPI_MCA_plm_rsh_agent=$dir/rsh" \
      "OMPI_MCA_plm_rsh_no_tree_spawn=1" \
      "FAULTLINE_NODE_KILL=$(cd "$(dirname "$0")" && pwd)/cluster-local.sh kill-node $dir --repair-after ${FL_CLUSTER_REPAIR_S:-10}" \
      "OMPI_MCA_btl_tcp_if_include=$net.0/24" "OMPI_MCA_oob_tcp_if_include=$net.0/24" >"$dir/env"
    echo "export $(sed "s/=\(.*\)/='\1'/" "$dir/env" | tr '\n' ' ')"
    exit 0
  fi
  sleep 0.5
done
echo "$0: the $N nodes did not come up (logs in $dir/log)" >&2
stop_cluster "$dir"
exit 1
