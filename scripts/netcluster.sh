#!/bin/sh
# The emulated multi-node cluster (docs/netcluster.md), scripts/netcluster.py
# under the first interpreter that has PyYAML:
#   scripts/netcluster.sh run --cluster=spec.yaml -- ./model.train ...
for py in ${AUTODIST_PYTHON:-} python3 /usr/bin/python3; do
  if "$py" -c "import yaml" >/dev/null 2>&1; then
    exec "$py" "$(dirname "$0")/netcluster.py" "$@"
  fi
done
echo "netcluster: no python3 with PyYAML (scripts/setup.sh installs python3-yaml)" >&2
exit 2
