#!/usr/bin/env bash
# The launch check on every node of a Slurm allocation: one `host check`
# per node (srun), each report written to this job's own directory of a
# shared file system, then the fleet verdict over exactly those reports.
#
#   salloc -N 4 ./launch-check.sh /local/models/kimi-k3 /shared/weights.manifest.json \
#       /shared/reports /etc/proofpack/host.key sha256:<weights digest> /shared/trust.json [RUN]
#
# Each node signs with its own host key (the path is the same on every node);
# the trust file lists every node's public key with role "host". The host
# name is Slurm's own name of the node ($SLURMD_NODENAME, as `scontrol show
# hostnames` lists the allocation), so every report names the host the
# fleet file selects. MODE (full or sizes-only, default full) is the same
# for host check and fleet verify. CONFIG_FILE (default ROOT/config.json),
# the model config the engine loads, is hashed into each report when it
# exists on the node: a qualification fails host:<node>.config without it. Every report is bound to the run's name
# (RUN, default slurm-job-$SLURM_JOB_ID; use the qualification's name) and
# to the fleet file, written before the checks (contract v1.1); the verdict
# compares the reports' totals and shard headers with MANIFEST (the JSON
# manifest record, whose digest is the pin).
set -euo pipefail
root=${1:?usage: launch-check.sh ROOT MANIFEST REPORTS_DIR HOST_KEY WEIGHTS_DIGEST TRUST [RUN]}
manifest=${2:?missing MANIFEST}
reports=${3:?missing REPORTS_DIR}
key=${4:?missing HOST_KEY}
pin=${5:?missing WEIGHTS_DIGEST}
trust=${6:?missing TRUST}
mode=${MODE:-full}
config=${CONFIG_FILE:-$root/config.json}
proofpack=${PROOFPACK:-proofpack}
: "${SLURM_JOB_NODELIST:?run inside a Slurm allocation (salloc or sbatch)}"
: "${SLURM_JOB_ID:?run inside a Slurm allocation (salloc or sbatch)}"
name=${7:-slurm-job-$SLURM_JOB_ID}
# This job's own directory: a report left by an earlier job is never read.
run="$reports/job-$SLURM_JOB_ID"
if [ -e "$run" ]; then
  echo "launch-check.sh: $run exists already; remove it or use another REPORTS_DIR" >&2
  exit 2
fi
mkdir -p "$run"
# The fleet file first: every report names its digest.
fleet="$run/fleet.json"
scontrol show hostnames "$SLURM_JOB_NODELIST" \
  | awk 'BEGIN { printf "{\"hosts\": [" } { printf "%s{\"name\": \"%s\"}", (NR > 1 ? ", " : ""), $1 } END { print "]}" }' \
  > "$fleet"
# One task per node; a node whose check fails still writes its report (exit 1).
srun --ntasks-per-node=1 bash -c '
  : "${SLURMD_NODENAME:?not run by srun}"
  config=()
  if [ -f "$8" ]; then config=(--config "$8"); fi
  "$0" --no-catalog host check "$1" --weights-manifest "$2" --"$5" \
       --host "$SLURMD_NODENAME" --run "$6" --fleet "$7" --key "$3" "${config[@]}" \
       -o "$4/$SLURMD_NODENAME.dsse.json" || [ $? -eq 1 ]
' "$proofpack" "$root" "$manifest" "$key" "$run" "$mode" "$name" "$fleet" "$config"
"$proofpack" --no-catalog fleet verify "$run"/*.dsse.json --fleet "$fleet" \
  --trust "$trust" --weights-manifest "$pin" --weights-record "$manifest" \
  --run "$name" --mode "$mode"
