#!/usr/bin/env bash
# The launch check on every node of a Slurm allocation: one `host check`
# per node (srun), reports written to a shared directory, then the fleet
# verdict on the node that runs this script.
#
#   salloc -N 4 ./launch-check.sh /local/models/kimi-k3 /shared/weights.manifest.json \
#       /shared/reports /etc/proofpack/host.key <weights-pin-hex> /shared/trust.json <run-name>
#
# Each node signs with its own host key (the path is the same on every node);
# the trust file lists every node's public key with role "host". Every
# report is bound to the run's name and to the fleet file written first
# (contract v1.1); the sizes-only verdict compares the shard headers with
# the weights record (the JSON manifest record, whose digest is the pin).
set -euo pipefail
root=${1:?usage: launch-check.sh ROOT MANIFEST REPORTS_DIR HOST_KEY WEIGHTS_PIN TRUST RUN}
manifest=${2:?missing MANIFEST}
reports=${3:?missing REPORTS_DIR}
key=${4:?missing HOST_KEY}
pin=${5:?missing WEIGHTS_PIN}
trust=${6:?missing TRUST}
run=${7:?missing RUN}
proofpack=${PROOFPACK:-proofpack}
: "${SLURM_JOB_NODELIST:?run inside a Slurm allocation (salloc or sbatch)}"
mkdir -p "$reports"
fleet="$reports/fleet.json"
scontrol show hostnames "$SLURM_JOB_NODELIST" \
  | awk 'BEGIN { printf "{\"hosts\": [" } { printf "%s{\"name\": \"%s\"}", (NR > 1 ? ", " : ""), $1 } END { print "]}" }' \
  > "$fleet"
# One task per node; a node whose check fails still writes its report (exit 1).
srun --ntasks-per-node=1 bash -c '
  "$0" --no-catalog host check "$1" --weights "$2" --sizes-only \
       --host "$(hostname -s)" --run "$5" --fleet "$6" --key "$3" \
       -o "$4/$(hostname -s).dsse.json" || [ $? -eq 1 ]
' "$proofpack" "$root" "$manifest" "$key" "$reports" "$run" "$fleet"
"$proofpack" --no-catalog fleet verify "$reports"/*.dsse.json --fleet "$fleet" \
  --trust "$trust" --weights-pin "$pin" --weights-record "$manifest" --run "$run" \
  --mode sizes-only
