#!/bin/bash
# Collective launcher for Kubernetes (an example, not tested here):
#   launch.sh N ADDR PORT TOKEN_FILE [ignored...]
# Makes a Secret from the controller's token file, applies
# sweep-job.yaml with N, ADDR and PORT filled in, waits for the Job's
# pods to end (the controller closes their connections when the sweep
# ends), then deletes the Job and the Secret.
set -eu
n=$1 addr=$2 port=$3 token=$4
dir=$(dirname "$0")
kubectl create secret generic fabricctl-sweep-token --from-file=token="$token" \
	--dry-run=client -o yaml | kubectl apply -f -
trap 'kubectl delete job fabricctl-sweep --ignore-not-found; kubectl delete secret fabricctl-sweep-token --ignore-not-found' EXIT
sed -e "s/__N__/$n/g" -e "s/__ADDR__/$addr/g" -e "s/__PORT__/$port/g" "$dir/sweep-job.yaml" |
	kubectl apply -f -
kubectl wait --for=condition=complete --timeout=24h job/fabricctl-sweep ||
	kubectl wait --for=condition=failed --timeout=1s job/fabricctl-sweep || true
