#!/usr/bin/env bash
# A fake Gomocup brain for tests/play.rs: writes its process id to the file $1, then becomes
# src/arena/testdata/fake-brain.sh (same process, through exec) with the remaining arguments,
# so a test can check that the brain it made misbehave was killed.
echo $$ >"$1"
shift
exec bash "$(dirname "$0")/../../src/arena/testdata/fake-brain.sh" "$@"
