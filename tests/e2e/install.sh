#!/bin/bash
# foxopt installed as a cluster user would (issue 25): the source configured, built and
# installed into a prefix by a user without root, the build tree deleted, then everything run
# from the prefix: --version, the man pages (man -M), bash completion, `module load` with the
# installed modulefile, a small study from the installed demo config, and the .deb that cpack
# builds holding the same files under /usr; and scripts/setup.sh's check without root.
source "$(dirname "$0")/lib.sh"
: "${FOX_SRC:?}"
VERSION=$("$FOXOPT" --version | awk '{print $2}')

# A user without root: ourselves, or (as root) a system user made for the test.
AS=()
if [ "$(id -u)" -eq 0 ]; then
  id foxinstall >/dev/null 2>&1 || useradd --system --no-create-home --shell /bin/bash foxinstall
  AS=(runuser -u foxinstall --)
fi
T=$(mktemp -d /tmp/foxinstall.XXXXXX)
trap 'rm -rf "$WORK" "$T"' EXIT
chmod 755 "$T"
SRC=$T/src BLD=$T/build PFX=$T/prefix
# The sources as a clone has them (no build trees, no venv).
mkdir -p "$SRC"
tar -C "$FOX_SRC" --exclude=./build --exclude=./.venv --exclude=./.git -cf - . | tar -C "$SRC" -xf -
[ ${#AS[@]} -gt 0 ] && chown -R foxinstall "$T"
# The other user has its own Open MPI session directory (lib.sh's is under a root-only $WORK).
as() { "${AS[@]}" env HOME="$T" OMPI_MCA_orte_tmpdir_base="$T" "$@"; }

run_rc 0 as cmake -S "$SRC" -B "$BLD" -DCMAKE_BUILD_TYPE=Release -DFOXOPT_CUDA=OFF \
  -DFOXOPT_FUZZ=OFF -DBUILD_TESTING=OFF
run_rc 0 as cmake --build "$BLD" -j "$(nproc)"
[ "$RC" -eq 0 ] || { echo "$OUT_TXT" | tail -20; done_; exit 1; }
run_rc 0 as cmake --install "$BLD" --prefix "$PFX"
(cd "$BLD" && run_rc 0 as cpack -G DEB && echo "$RC" >"$T/cpack.rc"; cp -f "$BLD"/foxopt_*.deb "$T/" 2>/dev/null)
check "cpack -G DEB" [ "$(cat "$T/cpack.rc" 2>/dev/null)" = 0 ]
rm -rf "$BLD"
check "build tree deleted" not [ -e "$BLD" ]

F=$PFX/bin/foxopt
run_rc 0 as "$F" --version
check "--version from the prefix" [ "$OUT_TXT" = "foxopt $VERSION" ]

# man -M PREFIX/share/man renders the pages
run_rc 0 as env MANWIDTH=100 man -M "$PFX/share/man" -P cat foxopt
contains "$OUT_TXT" "CONFIGURATION"
contains "$OUT_TXT" "dqn.lr (default 0.00025)"
run_rc 0 as env MANWIDTH=100 man -M "$PFX/share/man" -P cat foxopt-run
contains "$OUT_TXT" "--resume"

# bash completion: the installed script completes a subcommand and a key
comp() {
  as bash --norc -c 'source "$1"; shift; fn=$(complete -p foxopt | sed -n "s/.*-F \([^ ]*\).*/\1/p")
    COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); "$fn"; echo "${COMPREPLY[*]}"' \
    _ "$PFX/share/bash-completion/completions/foxopt" "$@"
}
check "completion: foxopt ru -> run" [ "$(comp foxopt ru)" = run ]
check "completion: --set ppo.cl -> ppo.clip=" [ "$(comp foxopt run x.yaml --set ppo.cl)" = ppo.clip= ]
check "zsh completion installed" grep -q '^#compdef foxopt' "$PFX/share/zsh/site-functions/_foxopt"

# module load foxopt (Environment Modules; Lmod reads the same Tcl file)
# module load foxopt with Environment Modules (scripts/setup.sh installs it), or with Lmod where
# a site has that instead (the two Debian packages exclude each other).
init=/usr/share/modules/init/bash
[ -r "$init" ] || init=/usr/share/lmod/lmod/init/bash
check "Environment Modules or Lmod present (scripts/setup.sh installs the first)" [ -r "$init" ]
if [ -r "$init" ]; then
  run_rc 0 as bash --norc -c "source $init; module use '$PFX/share/modulefiles'; module load foxopt
    command -v foxopt; man -w foxopt; man -w ls >/dev/null && echo system-man-ok; echo \$FOXOPT_HOME"
  check "module load: foxopt on PATH is the prefix's ($OUT_TXT)" \
    [ "$(sed -n 1p <<<"$OUT_TXT")" = "$F" ]
  check "module load: MANPATH finds the page" [ "$(sed -n 2p <<<"$OUT_TXT")" = "$PFX/share/man/man1/foxopt.1" ]
  contains "$OUT_TXT" "system-man-ok"
  check "module load: FOXOPT_HOME" [ "$(sed -n 4p <<<"$OUT_TXT")" = "$PFX/share/foxopt" ]
  # Published by a symbolic link, as sites do; and unloading gives MANPATH back as it was.
  mkdir -p "$T/mf/foxopt"
  ln -s "$PFX/share/modulefiles/foxopt/$VERSION" "$T/mf/foxopt/$VERSION"
  run_rc 0 as bash --norc -c "source $init; export MANPATH=/usr/share/man; module use '$T/mf'
    module load foxopt; command -v foxopt; module unload foxopt; echo \"[\$MANPATH]\""
  check "module load through a link: foxopt is the prefix's ($OUT_TXT)" \
    [ "$(sed -n 1p <<<"$OUT_TXT")" = "$F" ]
  # (Lmod keeps its own '::' in MANPATH after an unload: its convention, not the modulefile's.)
  [ "$init" = /usr/share/modules/init/bash ] &&
    check "module unload restores MANPATH ($OUT_TXT)" [ "$(sed -n 2p <<<"$OUT_TXT")" = "[/usr/share/man]" ]
fi

# A small study from the installed demo config, run from the prefix alone
D=$T/run
as mkdir -p "$D"
run_rc 0 as "$F" synth -o "$D/bars.csv" --bars 6000 --seed 3
run_rc 0 as "$F" import "$D/bars.csv" -o "$D/dataset.h5"
run_rc 0 as "$F" run "$PFX/share/foxopt/configs/demo.yaml" -o "$D/demo" \
  --set data.path="$D/dataset.h5" --set study.trials=2 --set study.round_size=2 \
  --set train.steps_per_epoch=512 --set env.num_envs=8 --set study.scheduler.max_epochs=1 \
  --set dqn.learning_starts=64
run_rc 0 as "$F" report "$D/demo" --no-plots
contains "$OUT_TXT" "demo"
check "the study wrote 2 trials" [ "$(($(wc -l <"$D/demo/trials.csv") - 1))" -eq 2 ]
check "installed sbatch scripts name the prefix" \
  grep -q "FOXOPT_HOME:-$PFX/share/foxopt" "$PFX/share/foxopt/slurm/foxopt-cpu.sbatch"
# A prefix moved whole: its foxopt-step.sh takes the binary beside it, not the old prefix's.
cp -a "$PFX" "$T/moved"
got=$(as bash -c "source '$T/moved/share/foxopt/slurm/foxopt-step.sh'; foxopt_bin")
check "moved prefix: foxopt-step.sh runs $T/moved/bin/foxopt (got $got)" \
  [ "$(readlink -f "$got")" = "$T/moved/bin/foxopt" ]
rm -rf "$T/moved"

# The .deb: the same files under ./usr as the prefix holds, its scripts naming /usr
deb=$(ls "$T"/foxopt_*.deb 2>/dev/null | head -1)
check "a .deb was built" [ -n "$deb" ]
if [ -n "$deb" ]; then
  dpkg-deb --contents "$deb" | awk '$1 !~ /^d/ {print $NF}' | sed 's|^\./usr/||' | sort >"$T/deb.txt"
  (cd "$PFX" && find . -type f | sed 's|^\./||' | sort) >"$T/pfx.txt"
  check "deb and prefix hold the same files: $(diff "$T/deb.txt" "$T/pfx.txt" | head -4 | tr '\n' ' ')" \
    cmp -s "$T/deb.txt" "$T/pfx.txt"
  mkdir -p "$T/root"
  dpkg-deb -x "$deb" "$T/root"
  check "the .deb's sbatch scripts name /usr" \
    grep -q 'FOXOPT_HOME:-/usr/share/foxopt' "$T/root/usr/share/foxopt/slurm/foxopt-cpu.sbatch"
  check "the .deb's foxopt-step.sh knows it is installed" \
    grep -q '^FOXOPT_INSTALLED=1' "$T/root/usr/share/foxopt/slurm/foxopt-step.sh"
  check "the .deb depends on its libraries" dpkg-deb -f "$deb" Depends
  contains "$(dpkg-deb -f "$deb" Depends)" "libhdf5"
fi
# scripts/setup.sh without root installs nothing: it checks, and names what is missing with
# how to get it on a cluster and on Debian.
run_rc 0 as bash "$SRC/scripts/setup.sh" --check
contains "$OUT_TXT" "prerequisites found"
mkdir -p "$T/bin"
for f in /usr/bin/*; do
  case ${f##*/} in mpicc | mpicc.* | h5cc | h5cc.*) ;; *) ln -s "$f" "$T/bin/" 2>/dev/null ;; esac
done
run_rc 2 as env PATH="$T/bin" PKG_CONFIG_LIBDIR=/nonexistent bash "$SRC/scripts/setup.sh" --check
contains "$ERR_TXT" "missing (required): an MPI with mpicc - on a cluster: module load openmpi"
contains "$ERR_TXT" "apt-get install libyaml-dev"
contains "$ERR_TXT" "nothing was built"
done_
