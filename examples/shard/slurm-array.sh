#!/usr/bin/env bash
# A fuzz campaign of 2000 random designs cross-checked against Verilator,
# spread over a Slurm job array: one array task per shard. hwgen reads the
# shard from SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT and
# SLURM_ARRAY_TASK_MIN (ids may start at 1, as here, or anywhere; a step
# such as --array=0-70:10 works too, a list such as --array=1,4,9 does not).
# Each task writes its result next to the others; hwgen merge prints the
# campaign's report once all have ended:
#
#   jobid=$(sbatch --parsable examples/shard/slurm-array.sh)
#   sbatch --dependency=afterany:$jobid --wrap 'hwgen merge results/fuzz-*.json > fuzz-report.txt'
#
# afterany, not afterok: a task whose design disagrees exits 1 after
# writing its result, and the merge reports that failure with the seed to
# reproduce it; a task that died without a result makes the merge name the
# missing shard. hwgen must be on PATH on the nodes (scripts/setup.sh and
# go build, or the image of the Dockerfile here through Apptainer).
# HWGEN_FUZZ_COUNT, HWGEN_FUZZ_CYCLES and HWGEN_FUZZ_ARGS change the
# campaign (cmd/hwgen's TestSlurmArray submits this script to a
# single-node Slurm, scripts/slurm-local.sh, with a campaign of 4 linted
# designs over --array=1-2).
#SBATCH --job-name=hwgen-fuzz
#SBATCH --array=1-8
#SBATCH --cpus-per-task=2
#SBATCH --mem=2G
#SBATCH --time=08:00:00
#SBATCH --output=hwgen-fuzz-%A_%a.log
set -euo pipefail

out=${HWGEN_RESULTS:-$SLURM_SUBMIT_DIR/results}
mkdir -p "$out"
# Verilator builds on the node's local disk: a cache on a shared file
# system would serialise the tasks' builds on its lock file.
export HWGEN_CACHE_DIR=${TMPDIR:-/tmp}/hwgen-cache-$SLURM_JOB_ID

# shellcheck disable=SC2086 # HWGEN_FUZZ_ARGS is a list of flags
hwgen verify fuzz --seed 1 --count "${HWGEN_FUZZ_COUNT:-2000}" --cycles "${HWGEN_FUZZ_CYCLES:-1000}" ${HWGEN_FUZZ_ARGS:-} \
  --shard-from-env --result "$out/fuzz-$SLURM_ARRAY_TASK_ID.json"
