# Sourced by the scripts that install a pinned npm tool for the tests
# (hack/azurite.sh, hack/inspector.sh): one way to install a package.json +
# package-lock.json into a cache outside the repository, keyed by version and
# lock, atomically (a half-done install is never used), and print its entry.
#
#   npm_cache_install NAME PACKAGE SRC_DIR CACHE_BASE KEY_FILES ENTRY
#
# NAME labels messages; PACKAGE is the npm package whose pinned version names
# the cache directory; KEY_FILES (space-separated, relative to SRC_DIR) are
# hashed into the key; ENTRY is the path inside the install to print.
# --ignore-scripts: these tools need no install step, and nothing downloaded
# runs at install time. They declare node >= 22 but run on Debian's 20, which
# the tests exercise.
npm_cache_install() {
	local name=$1 pkg=$2 src=$3 base=$4 keyfiles=$5 entry=$6
	local version key dir tmp f
	version=$(sed -n "s|.*\"$pkg\": *\"\([^\"]*\)\".*|\1|p" "$src/package.json" | head -1)
	key=$(cd "$src" && cat $keyfiles | sha256sum | cut -c1-12)
	dir="$base/$version-$key"
	if [ -f "$dir/.complete" ] && [ -f "$dir/$entry" ]; then
		echo "$dir/$entry"
		return 0
	fi
	for f in node npm; do
		if ! command -v "$f" >/dev/null; then
			echo "$name: $f is not installed: install Node.js 20 or later with npm (e.g. apt-get install nodejs npm)" >&2
			return 1
		fi
	done
	if [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 20 ]; then
		echo "$name: $pkg $version needs Node.js 20 or later; this is $(node --version)" >&2
		return 1
	fi
	mkdir -p "$base"
	tmp=$(mktemp -d "$base/.install-XXXXXX")
	cp "$src/package.json" "$src/package-lock.json" "$tmp/"
	echo "$name: installing $pkg@$version into $dir" >&2
	if ! (cd "$tmp" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error >&2); then
		rm -rf "$tmp"
		return 1
	fi
	touch "$tmp/.complete"
	if ! mv -T "$tmp" "$dir" 2>/dev/null; then
		rm -rf "$tmp"
		# Another run installed it meanwhile.
		[ -f "$dir/.complete" ] || { echo "$name: cannot install into $dir" >&2; return 1; }
	fi
	echo "$dir/$entry"
}
