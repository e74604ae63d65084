# lit rules for hloscope's text tests: every *.hlo / *.test file under testdata/ with
# `// RUN:` lines, run against one build tree (its lit.site.cfg.py sets the config.* paths).
#
#   // RUN: hlo-opt %s | FileCheck %s
#   // RUN: not hlo-opt %S/Inputs/bad.hlo 2>&1 | FileCheck %s --check-prefix=ERR
#   // RUN: hlo-opt %corpus/some_module.hlo --stats | FileCheck %s   (needs: // REQUIRES: corpus)
import os

import lit.formats

if not hasattr(config, "hloscope_obj_root"):
    lit_config.fatal(
        "run lit on the build tree, not the source tree: "
        "python3 /usr/lib/llvm-14/build/utils/lit/lit.py -sv <build>/testdata")

config.name = "hloscope"
# lit's own shell: portable, and `not`, pipes and `%s` work as in LLVM's tests.
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".hlo", ".test"]
# examples/ holds demo inputs and Inputs/ holds files that RUN lines read; neither is a test.
config.excludes = ["examples", "Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.hloscope_obj_root, "testdata")

# The freshly built tools first, then FileCheck and not from llvm-14, so RUN lines name them
# bare and never pick up another copy from the machine's PATH.
path_front = [config.hloscope_tools_dir,
              os.path.dirname(config.filecheck),
              os.path.dirname(config.not_tool)]
config.environment["PATH"] = os.pathsep.join(path_front + [config.environment["PATH"]])

config.substitutions.append(("%corpus", config.hloscope_corpus_dir))
# The repository's scripts/, for tests of their command lines (usage errors only: nothing
# that installs packages or builds).
config.substitutions.append(("%scripts", os.path.join(config.hloscope_src_root, "scripts")))
# Curated corpus files that XLA's verifier rules reject (see the file): corpus-wide loops skip them.
config.substitutions.append(
    ("%curated_invalid", os.path.join(config.hloscope_src_root, "tests", "corpus", "curated_invalid.tsv")))
config.substitutions.append(("%bulk", config.hloscope_bulk_dir))

# `// REQUIRES: corpus` / `bulk` lets a test say it reads the shared corpus, which a user who
# builds outside the project's checkout (no ../shared) may not have.
if os.path.isdir(config.hloscope_corpus_dir):
    config.available_features.add("corpus")
if os.path.isdir(config.hloscope_bulk_dir):
    config.available_features.add("bulk")
if config.build_type == "Sanitize":
    config.available_features.add("sanitize")
