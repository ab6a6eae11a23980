#!/usr/bin/env bash
# Fetches the conformance corpus the test suites read (EINV_CORPUS_DIR, default ../shared/corpus)
# from the public upstream repositories, each at the commit our tests were proven on. Needs git and
# internet access (it cannot run on a machine that reaches only package registries).
#
# Each upstream repository is checked out whole under its folder, so every file is found at its
# upstream relative path, as the suites expect. Not upstream, and so not fetched: the derived files
# the project workspace adds (oracle outputs and flattened indexes: oracle-baseline-cen-1.3.16.json,
# */unit-tests-index.json, mustangproject/expected-results.json and oracle-*.json) and the renamed
# selection under peppol-transport/; the suites that read them say so when they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${EINV_CORPUS_DIR:-../shared/corpus}"
mkdir -p "$target"

# folder  repository  commit
repositories='
eInvoicing-EN16931                 ConnectingEurope/eInvoicing-EN16931              b6c9e06a59812fb1a83585da40923b3678a649ad
peppol-bis-invoice-3               OpenPEPPOL/peppol-bis-invoice-3                  78d7f7dfa223f39f8ebd8d35c127f2690e646322
xrechnung-schematron               itplr-kosit/xrechnung-schematron                 3098f3da447b9c435c969158a576573bca09afbe
validator-configuration-xrechnung  itplr-kosit/validator-configuration-xrechnung    6faac15d697acfecb660b955962d90cd0d6ff4be
mustangproject                     ZUGFeRD/mustangproject                           096db40a9806b0b5202028509dff3563efe7fc8c
ph-fatturapa                       phax/ph-fatturapa                                ab534b87398e8cc783f74e808eff1d0dcf0b0fa5
France_RFE                         fnfempe/France_RFE                               e9520ce398cc99bed4bab493773a494af8ca5aff
gobl.cii                           invopop/gobl.cii                                 ca46ae0c12b0d5263dac787a12144920854a0337
bank4j                             inisos/bank4j                                    5ca91150e9183addcf55d50f787ad9b6633e3c67
phive-rules                        phax/phive-rules                                 432f0e9a8cff5c03d06625abe7a5fd8e7e346a64
'

echo "$repositories" | while read -r folder repository commit; do
  [ -n "$folder" ] || continue
  dir="$target/$folder"
  if [ -d "$dir/.git" ] && [ "$(git -C "$dir" rev-parse HEAD)" = "$commit" ]; then echo "corpus: $folder at $commit"; continue; fi
  echo "corpus: fetching $repository@$commit into $dir"
  mkdir -p "$dir"
  git -C "$dir" init -q
  git -C "$dir" fetch -q --depth 1 "https://github.com/$repository.git" "$commit"
  git -C "$dir" checkout -q --force FETCH_HEAD
done
[ -f "$target/README.md" ] || printf '# Conformance corpus fetched by scripts/corpus.sh\n' > "$target/README.md"
echo "corpus: ready in $target (set EINV_CORPUS_DIR=$target if it is not ../shared/corpus)"
