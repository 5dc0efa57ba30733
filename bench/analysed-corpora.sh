# Sourced by benchmarks that read what cull stored for the development, holdout and hard
# corpora: builds the corpora that are missing (/tmp/{dev,holdout,hard}-corpus; they need
# Debian's and PyPI's registries once), runs `cull run` on each into WORK, and sets `specs` to
# CORPUS_DIR:DB.sqlite for each. Needs a release build of cull and $shared (../shared/corpus).
analysed_corpora() {
  local work=$1 c
  [ -f /tmp/dev-corpus/truth.csv ] || python3 "$shared/build-corpus.py" --out /tmp/dev-corpus
  [ -f /tmp/holdout-corpus/truth.csv ] || python3 bench/holdout-corpus.py /tmp/holdout-corpus
  [ -f /tmp/hard-corpus/truth.csv ] || python3 "$shared/build-corpus.py" --out /tmp/hard-corpus --hard
  specs=()
  for c in dev holdout hard; do
    .build/release/cull run "/tmp/$c-corpus/photos" --db "$work/$c.sqlite" --format csv >/dev/null
    specs+=("/tmp/$c-corpus:$work/$c.sqlite")
  done
}
