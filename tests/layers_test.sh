#!/bin/sh
# The layering (README.md's layers table) holds for the tree, and the checker sees a breach:
# a copy of the tree whose runtime includes the world, and one where two folders of a layer meet.
set -eu
top=$1
"$top/scripts/check-layers" "$top"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/scripts"
cp "$top/README.md" "$tmp/"
for d in sim faults models engine properties traces world runs cli; do cp -r "$top/$d" "$tmp/"; done
echo '#include "world/world.h"' >> "$tmp/sim/random.h"
if out=$("$top/scripts/check-layers" "$tmp"); then echo "an upward include passed"; exit 1; fi
echo "$out" | grep -q 'sim/random.h:[0-9]*: includes world/: layer 0 includes from layer 4, above it'
sed -i '$d' "$tmp/sim/random.h"
echo '#include "models/kv_model.h"' >> "$tmp/faults/disk.h"
if out=$("$top/scripts/check-layers" "$tmp"); then echo "a same-layer include passed"; exit 1; fi
echo "$out" | grep -q 'faults/disk.h:[0-9]*: includes models/: two folders of layer 1 stay apart'
echo "layers: the tree is clean and both breaches are caught"
