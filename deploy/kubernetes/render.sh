#!/usr/bin/env bash
# Prints the Kubernetes objects of one launch-check run for `kubectl apply -f -`:
# one host-check Job per node (pinned to that node with nodeName, mounting
# that node's own Secret and nothing of any other node), and one
# fleet-verify Job that waits until every node's report of this run exists,
# then gives the fleet verdict and removes the report directories of
# earlier runs.
#
#   deploy/kubernetes/render.sh RUN NODE... | kubectl apply -f -
#
# RUN names this run (lowercase letters, digits and '-', at most 20
# characters, e.g. "$(date -u +%Y%m%d-%H%M%S)"); each run writes its
# reports to its own directory of the shared volume, so a report of an
# earlier run is never read. NODE is a node name as `kubectl get nodes`
# prints it. It prints no ConfigMap and no Secret: those are created once,
# by the commands in deploy/kubernetes/README.md, and never overwritten.
#
# Environment (defaults in brackets):
#   IMAGE    the image built by deploy/kubernetes/Dockerfile [proofpack:0.1.0]
#   WEIGHTS  the weights directory on every node (a hostPath) [/local/models/kimi-k3]
#   CONFIG_FILE  the model config the engine loads, as the host-check pod
#            sees it; hashed into the report when it exists (a qualification
#            fails host:<node>.config without it) [/weights/config.json]
#   MODE     full or sizes-only, the same for host check and fleet verify [full]
#   WAIT     seconds the fleet-verify Job waits for all reports [3600]
set -euo pipefail
usage="usage: render.sh RUN NODE..."
run=${1:?$usage}
shift
[ $# -ge 1 ] || { echo "$usage" >&2; exit 2; }
image=${IMAGE:-proofpack:0.1.0}
weights=${WEIGHTS:-/local/models/kimi-k3}
config_file=${CONFIG_FILE:-/weights/config.json}
mode=${MODE:-full}
wait_s=${WAIT:-3600}
if ! [[ $run =~ ^[a-z0-9]([a-z0-9-]{0,18}[a-z0-9])?$ ]]; then
  echo "render.sh: RUN $run: use 1 to 20 lowercase letters, digits and '-'" >&2
  exit 2
fi
case $mode in full | sizes-only) ;; *) echo "render.sh: MODE must be full or sizes-only" >&2; exit 2 ;; esac
[[ $wait_s =~ ^[0-9]+$ ]] || { echo "render.sh: WAIT must be a number of seconds" >&2; exit 2; }
[[ $weights == /* && $weights != *[\"\\]* ]] || { echo "render.sh: WEIGHTS must be an absolute path" >&2; exit 2; }
[[ $image != *[\"\\[:space:]]* ]] || { echo "render.sh: IMAGE $image is not an image reference" >&2; exit 2; }
for node in "$@"; do
  if ! [[ $node =~ ^[a-z0-9]([a-z0-9.-]{0,233}[a-z0-9])?$ ]]; then
    echo "render.sh: node $node is not a Kubernetes node name" >&2
    exit 2
  fi
done
# The fleet file of this run (node names are checked above: no quoting
# needed), the same bytes for every host check and the verdict.
fleet_json='{"hosts": ['
sep=
for node in "$@"; do
  fleet_json="$fleet_json$sep{\"name\": \"$node\"}"
  sep=', '
done
fleet_json="$fleet_json]}"
i=0
for node in "$@"; do
  i=$((i + 1))
  cat <<YAML
---
apiVersion: batch/v1
kind: Job
metadata:
  name: "proofpack-host-check-$run-$i"
  labels:
    app.kubernetes.io/name: proofpack
    proofpack/run: "$run"
    proofpack/step: host-check
  annotations:
    proofpack/node: "$node"
spec:
  backoffLimit: 0
  ttlSecondsAfterFinished: 86400
  template:
    metadata:
      labels:
        app.kubernetes.io/name: proofpack
        proofpack/run: "$run"
        proofpack/step: host-check
    spec:
      nodeName: "$node"
      restartPolicy: Never
      containers:
        - name: host-check
          image: "$image"
          imagePullPolicy: IfNotPresent
          command: ["/bin/sh", "-c"]
          # Exit 1 is a failed check: the signed report records it, and the
          # fleet verdict fails on it. Anything else is an error of the Job.
          args:
            - >-
              mkdir -p "/reports/\$RUN" &&
              printf '%s\\n' "\$FLEET" > /work/fleet.json &&
              set -- &&
              if [ -f "\$CONFIG_FILE" ]; then set -- --config "\$CONFIG_FILE"; fi &&
              proofpack --no-catalog host check /weights
              --weights-manifest /manifest/weights.manifest.json --$mode
              --host "\$NODE" --run "\$RUN" --fleet /work/fleet.json --key /key/host.key
              "\$@" -o "/reports/\$RUN/\$NODE.dsse.json" || [ \$? -eq 1 ]
          env:
            - name: RUN
              value: "$run"
            - name: NODE
              value: "$node"
            # The model config the engine loads, hashed on the node: a
            # report without it fails host:<node>.config in a qualification.
            - name: CONFIG_FILE
              value: "$config_file"
            # The fleet file every report of this run is bound to (v1.1):
            # the same bytes in every Job and in the verdict's.
            - name: FLEET
              value: '$fleet_json'
          volumeMounts:
            - name: weights
              mountPath: /weights
              readOnly: true
            - name: manifest
              mountPath: /manifest
              readOnly: true
            - name: key
              mountPath: /key
              readOnly: true
            - name: reports
              mountPath: /reports
            - name: work
              mountPath: /work
      volumes:
        - name: weights
          hostPath:
            path: "$weights"
            type: Directory
        - name: manifest
          configMap:
            name: proofpack-weights-manifest
        # This node's key only: no other node's key is in this pod.
        - name: key
          secret:
            secretName: "proofpack-host-key-$node"
            defaultMode: 0400
        - name: reports
          persistentVolumeClaim:
            claimName: proofpack-reports
        - name: work
          emptyDir: {}
YAML
done
cat <<YAML
---
apiVersion: batch/v1
kind: Job
metadata:
  name: "proofpack-fleet-verify-$run"
  labels:
    app.kubernetes.io/name: proofpack
    proofpack/run: "$run"
    proofpack/step: fleet-verify
spec:
  backoffLimit: 0
  ttlSecondsAfterFinished: 86400
  activeDeadlineSeconds: $((wait_s + 900))
  template:
    metadata:
      labels:
        app.kubernetes.io/name: proofpack
        proofpack/run: "$run"
        proofpack/step: fleet-verify
    spec:
      restartPolicy: Never
      initContainers:
        # Runs until every node's report of this run exists (host check
        # writes it atomically: it appears whole or not at all).
        - name: wait-for-reports
          image: "$image"
          imagePullPolicy: IfNotPresent
          command: ["/bin/sh", "-c"]
          args:
            - |
              deadline=\$(( \$(date +%s) + $wait_s ))
              for n in \$NODES; do
                until [ -s "/reports/\$RUN/\$n.dsse.json" ]; do
                  if [ "\$(date +%s)" -ge "\$deadline" ]; then
                    echo "no report of run \$RUN from node \$n after $wait_s s" >&2
                    exit 2
                  fi
                  sleep 5
                done
              done
          env:
            - name: RUN
              value: "$run"
            - name: NODES
              value: "$*"
          volumeMounts:
            - name: reports
              mountPath: /reports
              readOnly: true
      containers:
        # The Job's exit status is the verdict: 0 every node passed, 1 a
        # node failed (named in the log), 2 the check could not run.
        - name: fleet-verify
          image: "$image"
          imagePullPolicy: IfNotPresent
          command: ["/bin/sh", "-c"]
          args:
            - |
              printf '%s\n' "\$FLEET" > /work/fleet.json
              set -- --weights-manifest "\$WEIGHTS_MANIFEST"
              if [ -n "\$CONFIG" ]; then set -- "\$@" --config "\$CONFIG"; fi
              proofpack --no-catalog fleet verify "/reports/\$RUN"/*.dsse.json \\
                --fleet /work/fleet.json --trust /config/trust.json --mode $mode \\
                --weights-record /manifest/weights.manifest.json --run "\$RUN" "\$@"
              status=\$?
              for d in /reports/*/; do
                [ "\$d" = "/reports/\$RUN/" ] || rm -rf -- "\$d"
              done
              exit \$status
          env:
            - name: RUN
              value: "$run"
            - name: NODES
              value: "$*"
            - name: FLEET
              value: '$fleet_json'
            - name: WEIGHTS_MANIFEST
              valueFrom:
                configMapKeyRef:
                  name: proofpack-fleet
                  key: weights-manifest
            - name: CONFIG
              valueFrom:
                configMapKeyRef:
                  name: proofpack-fleet
                  key: config
                  optional: true
          volumeMounts:
            - name: reports
              mountPath: /reports
            - name: config
              mountPath: /config
              readOnly: true
            - name: manifest
              mountPath: /manifest
              readOnly: true
            - name: work
              mountPath: /work
      volumes:
        - name: reports
          persistentVolumeClaim:
            claimName: proofpack-reports
        - name: config
          configMap:
            name: proofpack-fleet
            items:
              - key: trust.json
                path: trust.json
        - name: manifest
          configMap:
            name: proofpack-weights-manifest
        - name: work
          emptyDir: {}
YAML
