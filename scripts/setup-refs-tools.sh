#!/usr/bin/env bash
# Installs the reference resolvers and corpora that scripts/compare-refs.py
# compares `repo-search refs` against, into $REPO_SEARCH_REFS_TOOLS (default
# ~/.cache/repo-search-refs-tools). Idempotent: what is there is kept.
#
#   scripts/setup-refs-tools.sh        # then: scripts/compare-refs.py --lang all
#
# - Python: a venv with jedi (pinned) from the package index; corpus: the
#   requests and click sdists (pinned), fetched with `pip download --no-binary :all:`.
# - TypeScript: the `typescript` package (pinned) from npm in a local prefix;
#   corpus: rxjs's and zod's (v3) own .ts sources (their npm tarballs ship src/).
# - Go: gopls and the Go toolchain from Debian's packages (apt-get, as root);
#   corpus: spf13/cobra and spf13/pflag from Debian's golang-*-dev packages
#   (/usr/share/gocode), which need nothing outside the standard library.
#
# A second, held-out corpus per language (compare-refs.py --set check), fetched
# the same ways; nobody tunes the resolver on these:
# - Python: the httpx and attrs sdists (pinned), with their tests.
# - TypeScript: mobx's and @tanstack/query-core's own .ts sources (src/).
# - Go: gorilla/mux and gorilla/websocket from Debian's golang-*-dev packages
#   (standard library only, as cobra and pflag).
#
# A second tuning set (compare-refs.py --set tune2), for variety to tune on
# without touching check, fetched the same ways:
# - Python: the marshmallow and jinja2 sdists (pinned), with their tests.
# - TypeScript: @tanstack/form-core's .ts sources with those of the
#   @tanstack/store they import, and prosemirror-model's (src/).
# - Go: gopkg.in/yaml.v2 and BurntSushi/toml from Debian's golang-*-dev
#   packages (standard library only; mostly unexported types and methods).
#
# A third tuning set (compare-refs.py --set tune3), different in style again:
# - Python: the werkzeug and pluggy sdists (pinned), with their tests
#   (typed library code; untyped pytest fixtures in the tests).
# - TypeScript: @tiptap/core's .ts sources with their tests and @uppy/core's
#   (src/): an editor and an uploader, classes with plugins and extensions.
# - Go: go-chi/chi v5 and urfave/cli v2 from Debian's golang-*-dev packages
#   (standard library only once cli's docs.go, which needs go-md2man, is out):
#   a router behind interfaces, and many flag types implementing one.
#
# A fourth tuning set (compare-refs.py --set tune4), different in style again:
# - Python: the starlette and h11 sdists (pinned), with their tests (an ASGI
#   toolkit: async, typed, requests and responses built from scopes; an HTTP
#   state machine: events and connection states).
# - TypeScript: chevrotain's .ts sources with those of the @chevrotain/gast
#   they import (a parser toolkit: abstract classes, visitors, parser traits
#   mixed into one class, generics) and @msgpack/msgpack's (an encoder and a
#   decoder with private readonly fields typed by the project's classes).
# - Go: yuin/goldmark (a Markdown parser: AST nodes embedding base structs,
#   parsers and renderers held in struct fields) and gomodule/redigo (a Redis
#   client: a pool of connections wrapping connections, closures) from
#   Debian's golang-*-dev packages (standard library only once redigo's
#   scan_test.go, which needs testify, is out).
#
# A fifth tuning set (compare-refs.py --set tune5), added when the others had
# become overfitted:
# - Python: the urllib3 and itsdangerous sdists (pinned), with their tests (a
#   connection pool and typed responses with properties; signers and
#   serializers built from class attributes).
# - Go: robfig/cron v3, julienschmidt/httprouter, gorilla/schema,
#   gorilla/securecookie and hashicorp/golang-lru from Debian's golang-*-dev
#   packages (standard library only), with their tests.
#
# A sixth tuning set (compare-refs.py --set tune6), Go only, added when the
# held-out Go set still missed what the five did not show:
# - Go: lib/pq and streadway/amqp from Debian's golang-*-dev packages
#   (standard library only once pq's auth/kerberos is out): network clients
#   built around a connection struct, as gorilla/websocket is.
#
# Each corpus is unpacked once under corpora/; compare-refs.py copies it into
# a scratch directory before indexing, so nothing here is ever written to.
set -euo pipefail

JEDI_VERSION=0.19.2
TYPESCRIPT_VERSION=5.9.3
REQUESTS_VERSION=2.32.3
CLICK_VERSION=8.1.8
RXJS_VERSION=7.8.2
ZOD_VERSION=3.25.76
# held-out (--set check)
HTTPX_VERSION=0.28.1
ATTRS_VERSION=25.3.0
MOBX_VERSION=6.13.7
QUERY_CORE_VERSION=5.83.0
# second tuning set (--set tune2)
MARSHMALLOW_VERSION=4.4.0
JINJA2_VERSION=3.1.6
FORM_CORE_VERSION=1.33.5
TANSTACK_STORE_VERSION=0.11.2
PROSEMIRROR_MODEL_VERSION=1.25.13
# third tuning set (--set tune3)
WERKZEUG_VERSION=3.1.9
PLUGGY_VERSION=1.7.0
TIPTAP_CORE_VERSION=3.34.0
UPPY_CORE_VERSION=6.3.1
# JavaScript (compare-refs.py --lang js): tune, tune2, check
COMMANDER_VERSION=12.1.0
CHOKIDAR_VERSION=3.6.0
WS_VERSION=8.18.0
KOA_VERSION=2.15.3
WINSTON_VERSION=3.17.0
KNEX_VERSION=3.1.0
# fourth tuning set (--set tune4)
CHEVROTAIN_VERSION=11.2.0
MSGPACK_VERSION=3.1.3
STARLETTE_VERSION=0.47.2
H11_VERSION=0.16.0
# fifth tuning set (--set tune5)
URLLIB3_VERSION=2.5.0
ITSDANGEROUS_VERSION=2.2.0

CACHE=${REPO_SEARCH_REFS_TOOLS:-$HOME/.cache/repo-search-refs-tools}
mkdir -p "$CACHE/corpora"
say() { echo "setup-refs-tools: $*" >&2; }

# --- Python: jedi -----------------------------------------------------------
if ! "$CACHE/venv/bin/python" -c "import jedi, sys; sys.exit(jedi.__version__ != '$JEDI_VERSION')" 2>/dev/null; then
    say "jedi $JEDI_VERSION into $CACHE/venv"
    python3 -m venv "$CACHE/venv"
    "$CACHE/venv/bin/pip" install --quiet --disable-pip-version-check "jedi==$JEDI_VERSION"
fi

# --- TypeScript: the language service ----------------------------------------
if [ "$(node -p "require('$CACHE/npm/node_modules/typescript/package.json').version" 2>/dev/null)" != "$TYPESCRIPT_VERSION" ]; then
    say "typescript $TYPESCRIPT_VERSION into $CACHE/npm"
    mkdir -p "$CACHE/npm"
    npm install --silent --no-audit --no-fund --prefix "$CACHE/npm" "typescript@$TYPESCRIPT_VERSION" >&2
fi

# --- Go: gopls, the toolchain, cobra and pflag, gorilla's mux and websocket,
# yaml.v2 and toml, chi and urfave/cli, goldmark and redigo ---------------------
GOCODE=/usr/share/gocode/src/github.com/spf13
GORILLA=/usr/share/gocode/src/github.com/gorilla
YAML_V2=/usr/share/gocode/src/gopkg.in/yaml.v2
BURNTSUSHI_TOML=/usr/share/gocode/src/github.com/BurntSushi/toml
CHI=/usr/share/gocode/src/github.com/go-chi/chi
URFAVE_CLI=/usr/share/gocode/src/github.com/urfave/cli/v2
GOLDMARK=/usr/share/gocode/src/github.com/yuin/goldmark
REDIGO=/usr/share/gocode/src/github.com/gomodule/redigo
GO_TUNE5_SRC="/usr/share/gocode/src/github.com/robfig/cron /usr/share/gocode/src/github.com/julienschmidt/httprouter
  $GORILLA/schema $GORILLA/securecookie /usr/share/gocode/src/github.com/hashicorp/golang-lru
  /usr/share/gocode/src/github.com/lib/pq /usr/share/gocode/src/github.com/streadway/amqp
  /usr/share/gocode/src/nhooyr.io/websocket $GORILLA/sessions $GORILLA/csrf"
go_tune5_missing() { local d; for d in $GO_TUNE5_SRC; do [ -d "$d" ] || return 0; done; return 1; }
if ! command -v gopls >/dev/null || ! command -v go >/dev/null || [ ! -d "$GOCODE/cobra" ] || [ ! -d "$GOCODE/pflag" ] \
    || [ ! -d "$GORILLA/mux" ] || [ ! -d "$GORILLA/websocket" ] || [ ! -d "$YAML_V2" ] || [ ! -d "$BURNTSUSHI_TOML" ] \
    || [ ! -d "$CHI" ] || [ ! -d "$URFAVE_CLI" ] || [ ! -d "$GOLDMARK" ] || [ ! -d "$REDIGO" ] || go_tune5_missing; then
    say "gopls, golang-go, cobra, pflag, mux, websocket, yaml.v2, toml, chi, urfave/cli, goldmark, redigo, cron, httprouter, schema, securecookie, golang-lru, pq, amqp, nhooyr's websocket, sessions and csrf sources from Debian's packages"
    [ "$(id -u)" = 0 ] || { say "needs root for apt-get (or install gopls golang-go golang-github-spf13-cobra-dev golang-github-spf13-pflag-dev golang-github-gorilla-mux-dev golang-github-gorilla-websocket-dev golang-gopkg-yaml.v2-dev golang-github-burntsushi-toml-dev golang-github-go-chi-chi-dev golang-github-urfave-cli-v2-dev golang-github-yuin-goldmark-dev golang-github-gomodule-redigo-dev golang-github-robfig-cron-dev golang-github-julienschmidt-httprouter-dev golang-github-gorilla-schema-dev golang-github-gorilla-securecookie-dev golang-github-hashicorp-golang-lru-dev golang-github-lib-pq-dev golang-github-streadway-amqp-dev golang-nhooyr-websocket-dev golang-github-gorilla-sessions-dev golang-github-gorilla-csrf-dev yourself)"; exit 1; }
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gopls golang-go \
        golang-github-spf13-cobra-dev golang-github-spf13-pflag-dev \
        golang-github-gorilla-mux-dev golang-github-gorilla-websocket-dev \
        golang-gopkg-yaml.v2-dev golang-github-burntsushi-toml-dev \
        golang-github-go-chi-chi-dev golang-github-urfave-cli-v2-dev \
        golang-github-yuin-goldmark-dev golang-github-gomodule-redigo-dev \
        golang-github-robfig-cron-dev golang-github-julienschmidt-httprouter-dev \
        golang-github-gorilla-schema-dev golang-github-gorilla-securecookie-dev \
        golang-github-hashicorp-golang-lru-dev golang-github-lib-pq-dev \
        golang-github-streadway-amqp-dev golang-nhooyr-websocket-dev \
        golang-github-gorilla-sessions-dev golang-github-gorilla-csrf-dev >&2
fi

# Unpacks the sdists NAME==VERSION ... side by side into DIR/NAME, built in
# DIR.part and moved in place at the end (an interrupted run leaves no DIR).
sdists() {
    local dir=$1 tmp spec
    shift
    tmp=$(mktemp -d)
    "$CACHE/venv/bin/pip" download --quiet --disable-pip-version-check --no-binary :all: --no-deps \
        -d "$tmp" "$@" >&2
    rm -rf "$dir.part"
    for spec in "$@"; do
        mkdir -p "$dir.part/${spec%%==*}"
        tar xzf "$tmp/${spec%%==*}-${spec##*==}.tar.gz" -C "$dir.part/${spec%%==*}" --strip-components=1
    done
    rm -rf "$tmp" "$dir" && mv "$dir.part" "$dir"
}

# npm_srcs DIR SUB=SPEC[:PATH]...: `npm pack`s each package SPEC (name@version)
# and unpacks its PATH (default package/src) into DIR/SUB, only the .ts files;
# all or nothing (DIR.part, then renamed).
npm_srcs() {
    local dir=$1 tmp arg sub spec path name ver
    local specs=()
    shift
    for arg in "$@"; do
        spec=${arg#*=}
        specs+=("${spec%%:*}")
    done
    tmp=$(mktemp -d)
    (cd "$tmp" && npm pack --silent "${specs[@]}" >/dev/null)
    rm -rf "$dir.part"
    for arg in "$@"; do
        sub=${arg%%=*}
        spec=${arg#*=}
        path=package/src
        [[ $spec == *:* ]] && path=${spec#*:}
        spec=${spec%%:*}
        name=${spec%@*}
        ver=${spec##*@}
        name=${name#@}
        mkdir -p "$dir.part/$sub"
        tar xzf "$tmp/${name//\//-}-$ver.tgz" -C "$dir.part/$sub" \
            --strip-components="$(awk -F/ '{print NF}' <<<"$path")" "$path"
    done
    find "$dir.part" -type f ! -name "${NPM_KEEP:-*.ts}" -delete
    rm -rf "$tmp" "$dir" && mv "$dir.part" "$dir"
}

# --- corpora -----------------------------------------------------------------
# Python: the requests and click sdists side by side (library in src/, its
# tests in tests/), 100+ referenced methods together.
PY_DIR="$CACHE/corpora/python-requests-$REQUESTS_VERSION-click-$CLICK_VERSION"
if [ ! -d "$PY_DIR/requests/src/requests" ] || [ ! -d "$PY_DIR/click/src/click" ]; then
    say "requests $REQUESTS_VERSION and click $CLICK_VERSION sdists"
    sdists "$PY_DIR" "requests==$REQUESTS_VERSION" "click==$CLICK_VERSION"
fi

# TypeScript: rxjs's src/ and zod's v3 src/ (zod 3.25 ships v3 and v4; v3 is
# the class-based one), side by side; no dist/ .js or .d.ts copies, only the
# .ts sources. zod's v3 tests and benchmarks import the package by name
# ("zod/v3"): that import is rewritten to the relative "../index.js", so that
# it resolves without a package install or tsconfig paths, for the resolver
# and for us (benchmarks/ was missed at first: the rewrite also runs on a
# corpus unpacked before, and is idempotent).
TS_DIR="$CACHE/corpora/ts-rxjs-$RXJS_VERSION-zod-$ZOD_VERSION"
if [ ! -d "$TS_DIR/rxjs/internal" ] || [ ! -d "$TS_DIR/zod-v3/tests" ]; then
    say "rxjs $RXJS_VERSION and zod $ZOD_VERSION sources"
    npm_srcs "$TS_DIR" "rxjs=rxjs@$RXJS_VERSION" "zod-v3=zod@$ZOD_VERSION:package/src/v3"
fi
find "$TS_DIR/zod-v3/tests" "$TS_DIR/zod-v3/benchmarks" -name '*.ts' -exec sed -i 's#from "zod/v3"#from "../index.js"#' {} +

# Go: one module `github.com/spf13` holding cobra/ and pflag/, so cobra's
# `import "github.com/spf13/pflag"` resolves inside it with no module proxy.
# Left out: cobra/doc (needs go-md2man and yaml) and command_win.go (Windows
# only, needs mousetrap).
GO_DIR="$CACHE/corpora/spf13-go"
if [ ! -f "$GO_DIR/go.mod" ]; then
    say "cobra + pflag module"
    rm -rf "$GO_DIR.part" && mkdir -p "$GO_DIR.part"
    cp -rL "$GOCODE/cobra" "$GOCODE/pflag" "$GO_DIR.part/"
    rm -rf "$GO_DIR.part/cobra/doc" "$GO_DIR.part/cobra/command_win.go" \
        "$GO_DIR.part"/cobra/go.mod "$GO_DIR.part"/cobra/go.sum "$GO_DIR.part"/pflag/go.mod "$GO_DIR.part"/pflag/go.sum
    printf 'module github.com/spf13\n\ngo 1.19\n' > "$GO_DIR.part/go.mod"
    rm -rf "$GO_DIR" && mv "$GO_DIR.part" "$GO_DIR"
fi

# --- held-out corpora (compare-refs.py --set check) ---------------------------
# Python: the httpx and attrs sdists side by side (httpx/httpx with its tests
# in httpx/tests; attrs/src/attr{,s} with attrs/tests).
PY_CHECK_DIR="$CACHE/corpora/python-httpx-$HTTPX_VERSION-attrs-$ATTRS_VERSION"
if [ ! -d "$PY_CHECK_DIR/httpx/httpx" ] || [ ! -d "$PY_CHECK_DIR/attrs/src/attr" ]; then
    say "httpx $HTTPX_VERSION and attrs $ATTRS_VERSION sdists"
    sdists "$PY_CHECK_DIR" "httpx==$HTTPX_VERSION" "attrs==$ATTRS_VERSION"
fi

# TypeScript: mobx's src/ and @tanstack/query-core's src/, side by side, only
# the .ts sources (mobx's global.d.ts declares __DEV__). Neither imports itself
# by package name, so nothing is rewritten; neither tarball ships tests.
TS_CHECK_DIR="$CACHE/corpora/ts-mobx-$MOBX_VERSION-query-core-$QUERY_CORE_VERSION"
if [ ! -d "$TS_CHECK_DIR/mobx/core" ] || [ ! -f "$TS_CHECK_DIR/query-core/queryClient.ts" ]; then
    say "mobx $MOBX_VERSION and @tanstack/query-core $QUERY_CORE_VERSION sources"
    npm_srcs "$TS_CHECK_DIR" "mobx=mobx@$MOBX_VERSION" "query-core=@tanstack/query-core@$QUERY_CORE_VERSION"
fi

# Go: one module `github.com/gorilla` holding mux/ and websocket/ (each with
# its tests; both need only the standard library).
GO_CHECK_DIR="$CACHE/corpora/gorilla-go"
if [ ! -f "$GO_CHECK_DIR/go.mod" ]; then
    say "mux + websocket module"
    rm -rf "$GO_CHECK_DIR.part" && mkdir -p "$GO_CHECK_DIR.part"
    cp -rL "$GORILLA/mux" "$GORILLA/websocket" "$GO_CHECK_DIR.part/"
    rm -f "$GO_CHECK_DIR.part"/*/go.mod "$GO_CHECK_DIR.part"/*/go.sum
    printf 'module github.com/gorilla\n\ngo 1.19\n' > "$GO_CHECK_DIR.part/go.mod"
    rm -rf "$GO_CHECK_DIR" && mv "$GO_CHECK_DIR.part" "$GO_CHECK_DIR"
fi

# --- second tuning set (compare-refs.py --set tune2) ---------------------------
# Python: the marshmallow and jinja2 sdists side by side (src/ layout each, with
# tests/; marshmallow's tests import `tests.base`).
PY_TUNE2_DIR="$CACHE/corpora/python-marshmallow-$MARSHMALLOW_VERSION-jinja2-$JINJA2_VERSION"
if [ ! -d "$PY_TUNE2_DIR/marshmallow/src/marshmallow" ] || [ ! -d "$PY_TUNE2_DIR/jinja2/src/jinja2" ]; then
    say "marshmallow $MARSHMALLOW_VERSION and jinja2 $JINJA2_VERSION sdists"
    sdists "$PY_TUNE2_DIR" "marshmallow==$MARSHMALLOW_VERSION" "jinja2==$JINJA2_VERSION"
fi

# TypeScript: @tanstack/form-core's src/ (classes whose methods are mostly
# arrow-function fields, which the navigation tree lists as properties, so few
# of them are sampled), the src/ of the @tanstack/store it imports, and
# prosemirror-model's src/ (most sampled names), side by side, only the .ts
# sources. form-core imports the store by
# package name: rewritten to the relative "../store/index", as zod's "zod/v3"
# (idempotent). Its other imports (@tanstack/devtools-event-client,
# @tanstack/pacer-lite) and prosemirror-model's orderedmap stay unresolved.
# None of the tarballs ships tests.
TS_TUNE2_DIR="$CACHE/corpora/ts-form-core-$FORM_CORE_VERSION-store-$TANSTACK_STORE_VERSION-prosemirror-model-$PROSEMIRROR_MODEL_VERSION"
if [ ! -f "$TS_TUNE2_DIR/form-core/FormApi.ts" ] || [ ! -f "$TS_TUNE2_DIR/store/index.ts" ] \
    || [ ! -f "$TS_TUNE2_DIR/prosemirror-model/node.ts" ]; then
    say "@tanstack/form-core $FORM_CORE_VERSION, @tanstack/store $TANSTACK_STORE_VERSION and prosemirror-model $PROSEMIRROR_MODEL_VERSION sources"
    npm_srcs "$TS_TUNE2_DIR" "form-core=@tanstack/form-core@$FORM_CORE_VERSION" \
        "store=@tanstack/store@$TANSTACK_STORE_VERSION" "prosemirror-model=prosemirror-model@$PROSEMIRROR_MODEL_VERSION"
fi
find "$TS_TUNE2_DIR/form-core" -name '*.ts' -exec sed -i "s#from '@tanstack/store'#from '../store/index'#" {} +

# Go: one module `corpus` holding yaml/ (gopkg.in/yaml.v2) and toml/
# (BurntSushi/toml with its internal/ packages and the embedded toml-test
# suite), imports of either by its own path rewritten to corpus/yaml and
# corpus/toml. Left out: yaml.v2's tests on gopkg.in/check.v1 (all but the
# embedded-struct example), which is not in the standard library.
GO_TUNE2_DIR="$CACHE/corpora/yaml-toml-go"
if [ ! -f "$GO_TUNE2_DIR/go.mod" ]; then
    say "yaml.v2 + toml module"
    rm -rf "$GO_TUNE2_DIR.part" && mkdir -p "$GO_TUNE2_DIR.part"
    cp -rL "$YAML_V2" "$GO_TUNE2_DIR.part/yaml"
    cp -rL "$BURNTSUSHI_TOML" "$GO_TUNE2_DIR.part/toml"
    rm -f "$GO_TUNE2_DIR.part"/*/go.mod "$GO_TUNE2_DIR.part"/*/go.sum
    grep -l 'gopkg.in/check.v1' "$GO_TUNE2_DIR.part"/yaml/*_test.go | xargs rm -f
    find "$GO_TUNE2_DIR.part" -name '*.go' -exec sed -i \
        -e 's#"gopkg.in/yaml.v2"#"corpus/yaml"#' -e 's#"github.com/BurntSushi/toml#"corpus/toml#' {} +
    printf 'module corpus\n\ngo 1.19\n' > "$GO_TUNE2_DIR.part/go.mod"
    rm -rf "$GO_TUNE2_DIR" && mv "$GO_TUNE2_DIR.part" "$GO_TUNE2_DIR"
fi

# --- third tuning set (compare-refs.py --set tune3) ----------------------------
# Python: the werkzeug and pluggy sdists side by side (src/ layout each;
# werkzeug's tests/ and examples/, pluggy's testing/).
PY_TUNE3_DIR="$CACHE/corpora/python-werkzeug-$WERKZEUG_VERSION-pluggy-$PLUGGY_VERSION"
if [ ! -d "$PY_TUNE3_DIR/werkzeug/src/werkzeug" ] || [ ! -d "$PY_TUNE3_DIR/pluggy/src/pluggy" ]; then
    say "werkzeug $WERKZEUG_VERSION and pluggy $PLUGGY_VERSION sdists"
    sdists "$PY_TUNE3_DIR" "werkzeug==$WERKZEUG_VERSION" "pluggy==$PLUGGY_VERSION"
fi

# TypeScript: @tiptap/core's src/ (an editor and its extension classes, with
# its tests) and @uppy/core's src/ (an uploader and its plugin classes), side
# by side, only the .ts sources (uppy's .tsx views are out). tiptap's own
# files import the package by name ('@tiptap/core'): rewritten to the relative
# path of its index.js, as zod's "zod/v3" (idempotent). Their imports of
# prosemirror (@tiptap/pm), preact and the rest stay unresolved.
TS_TUNE3_DIR="$CACHE/corpora/ts-tiptap-core-$TIPTAP_CORE_VERSION-uppy-core-$UPPY_CORE_VERSION"
if [ ! -f "$TS_TUNE3_DIR/tiptap/Editor.ts" ] || [ ! -f "$TS_TUNE3_DIR/uppy/Uppy.ts" ]; then
    say "@tiptap/core $TIPTAP_CORE_VERSION and @uppy/core $UPPY_CORE_VERSION sources"
    npm_srcs "$TS_TUNE3_DIR" "tiptap=@tiptap/core@$TIPTAP_CORE_VERSION" "uppy=@uppy/core@$UPPY_CORE_VERSION"
fi
# (`|| true`: once rewritten, grep finds nothing and exits 1, which under
# pipefail would stop the script)
{ grep -rl "from '@tiptap/core'" "$TS_TUNE3_DIR/tiptap" || true; } | while read -r f; do
    rel=$(realpath -m --relative-to="$(dirname "$f")" "$TS_TUNE3_DIR/tiptap/index.js")
    case $rel in .*) ;; *) rel=./$rel ;; esac
    sed -i "s#from '@tiptap/core'#from '$rel'#" "$f"
done

# Go: one module `corpus` holding chi/ (go-chi/chi v5 with middleware/ and
# its tests) and cli/ (urfave/cli v2), imports of either by its own path
# rewritten to corpus/chi and corpus/cli. Left out: chi's _examples (the go
# tool skips _ directories; some need render, docgen or logrus) and cli's
# docs.go (needs go-md2man) with docs_test.go and fish_test.go (which uses
# docs_test.go's testApp).
GO_TUNE3_DIR="$CACHE/corpora/chi-cli-go"
if [ ! -f "$GO_TUNE3_DIR/go.mod" ]; then
    say "chi + urfave/cli module"
    rm -rf "$GO_TUNE3_DIR.part" && mkdir -p "$GO_TUNE3_DIR.part"
    cp -rL "$CHI" "$GO_TUNE3_DIR.part/chi"
    cp -rL "$URFAVE_CLI" "$GO_TUNE3_DIR.part/cli"
    rm -rf "$GO_TUNE3_DIR.part/chi/_examples" "$GO_TUNE3_DIR.part"/cli/docs.go "$GO_TUNE3_DIR.part"/cli/docs_test.go \
        "$GO_TUNE3_DIR.part"/cli/fish_test.go "$GO_TUNE3_DIR.part"/*/go.mod "$GO_TUNE3_DIR.part"/*/go.sum
    find "$GO_TUNE3_DIR.part" -name '*.go' -exec sed -i \
        -e 's#"github.com/go-chi/chi/v5#"corpus/chi#' -e 's#"github.com/urfave/cli/v2#"corpus/cli#' {} +
    printf 'module corpus\n\ngo 1.19\n' > "$GO_TUNE3_DIR.part/go.mod"
    rm -rf "$GO_TUNE3_DIR" && mv "$GO_TUNE3_DIR.part" "$GO_TUNE3_DIR"
fi

# --- JavaScript (compare-refs.py --lang js) ------------------------------------
# Plain .js packages (classes, prototypes, JSDoc types), only their .js files:
# commander + chokidar (tune), ws + koa (tune2), whole packages; winston +
# knex (check, held out), their lib/ (winston also ships a transpiled dist/).
JS_DIR="$CACHE/corpora/js-commander-$COMMANDER_VERSION-chokidar-$CHOKIDAR_VERSION"
if [ ! -f "$JS_DIR/commander/lib/command.js" ] || [ ! -f "$JS_DIR/chokidar/index.js" ]; then
    say "commander $COMMANDER_VERSION and chokidar $CHOKIDAR_VERSION"
    NPM_KEEP='*.js' npm_srcs "$JS_DIR" "commander=commander@$COMMANDER_VERSION:package" \
        "chokidar=chokidar@$CHOKIDAR_VERSION:package"
fi
JS_TUNE2_DIR="$CACHE/corpora/js-ws-$WS_VERSION-koa-$KOA_VERSION"
if [ ! -f "$JS_TUNE2_DIR/ws/lib/websocket.js" ] || [ ! -f "$JS_TUNE2_DIR/koa/lib/application.js" ]; then
    say "ws $WS_VERSION and koa $KOA_VERSION"
    NPM_KEEP='*.js' npm_srcs "$JS_TUNE2_DIR" "ws=ws@$WS_VERSION:package" "koa=koa@$KOA_VERSION:package"
fi
JS_CHECK_DIR="$CACHE/corpora/js-winston-$WINSTON_VERSION-knex-$KNEX_VERSION"
if [ ! -f "$JS_CHECK_DIR/winston/winston.js" ] || [ ! -f "$JS_CHECK_DIR/knex/knex.js" ]; then
    say "winston $WINSTON_VERSION and knex $KNEX_VERSION lib/"
    NPM_KEEP='*.js' npm_srcs "$JS_CHECK_DIR" "winston=winston@$WINSTON_VERSION:package/lib" \
        "knex=knex@$KNEX_VERSION:package/lib"
fi

# --- fourth tuning set (compare-refs.py --set tune4) ---------------------------
# TypeScript: chevrotain's src/ with the src/ of the @chevrotain/gast it
# imports, and @msgpack/msgpack's src/, side by side, only the .ts sources.
# chevrotain imports gast by package name: rewritten to the relative path of
# gast's api.js, as tiptap's '@tiptap/core' (idempotent). Its other imports
# (@chevrotain/types, utils, regexp-to-ast, cst-dts-gen, lodash-es) stay
# unresolved. None of the tarballs ships tests.
TS_TUNE4_DIR="$CACHE/corpora/ts-chevrotain-$CHEVROTAIN_VERSION-msgpack-$MSGPACK_VERSION"
if [ ! -f "$TS_TUNE4_DIR/chevrotain/api.ts" ] || [ ! -f "$TS_TUNE4_DIR/gast/api.ts" ] \
    || [ ! -f "$TS_TUNE4_DIR/msgpack/Encoder.ts" ]; then
    say "chevrotain $CHEVROTAIN_VERSION, @chevrotain/gast $CHEVROTAIN_VERSION and @msgpack/msgpack $MSGPACK_VERSION sources"
    npm_srcs "$TS_TUNE4_DIR" "chevrotain=chevrotain@$CHEVROTAIN_VERSION" \
        "gast=@chevrotain/gast@$CHEVROTAIN_VERSION" "msgpack=@msgpack/msgpack@$MSGPACK_VERSION"
fi
{ grep -rl 'from "@chevrotain/gast"' "$TS_TUNE4_DIR/chevrotain" || true; } | while read -r f; do
    rel=$(realpath -m --relative-to="$(dirname "$f")" "$TS_TUNE4_DIR/gast/api.js")
    case $rel in .*) ;; *) rel=./$rel ;; esac
    sed -i "s#from \"@chevrotain/gast\"#from \"$rel\"#" "$f"
done

# Python: the starlette and h11 sdists side by side (starlette/starlette with
# its tests/, h11/h11 with h11/tests).
PY_TUNE4_DIR="$CACHE/corpora/python-starlette-$STARLETTE_VERSION-h11-$H11_VERSION"
if [ ! -d "$PY_TUNE4_DIR/starlette/starlette" ] || [ ! -d "$PY_TUNE4_DIR/h11/h11" ]; then
    say "starlette $STARLETTE_VERSION and h11 $H11_VERSION sdists"
    sdists "$PY_TUNE4_DIR" "starlette==$STARLETTE_VERSION" "h11==$H11_VERSION"
fi

# Go: one module `corpus` holding goldmark/ (yuin/goldmark with its
# extension/, parser/, renderer/ packages, its tests and their _test/ data)
# and redigo/ (gomodule/redigo's redis/ and redisx/), imports of either by its
# own path rewritten to corpus/goldmark and corpus/redigo. Left out:
# goldmark's _tools (a generator) and redigo's scan_test.go (needs testify).
GO_TUNE4_DIR="$CACHE/corpora/goldmark-redigo-go"
if [ ! -f "$GO_TUNE4_DIR/go.mod" ]; then
    say "goldmark + redigo module"
    rm -rf "$GO_TUNE4_DIR.part" && mkdir -p "$GO_TUNE4_DIR.part"
    cp -rL "$GOLDMARK" "$GO_TUNE4_DIR.part/goldmark"
    cp -rL "$REDIGO" "$GO_TUNE4_DIR.part/redigo"
    rm -rf "$GO_TUNE4_DIR.part/goldmark/_tools" "$GO_TUNE4_DIR.part/redigo/redis/scan_test.go" \
        "$GO_TUNE4_DIR.part"/*/go.mod "$GO_TUNE4_DIR.part"/*/go.sum
    find "$GO_TUNE4_DIR.part" -name '*.go' -exec sed -i \
        -e 's#"github.com/yuin/goldmark#"corpus/goldmark#' -e 's#"github.com/gomodule/redigo#"corpus/redigo#' {} +
    printf 'module corpus\n\ngo 1.19\n' > "$GO_TUNE4_DIR.part/go.mod"
    rm -rf "$GO_TUNE4_DIR" && mv "$GO_TUNE4_DIR.part" "$GO_TUNE4_DIR"
fi

# --- fifth tuning set (compare-refs.py --set tune5) ----------------------------
# Python: the urllib3 and itsdangerous sdists side by side (src/ layout each;
# urllib3's test/ and dummyserver/, itsdangerous's tests/).
PY_TUNE5_DIR="$CACHE/corpora/python-urllib3-$URLLIB3_VERSION-itsdangerous-$ITSDANGEROUS_VERSION"
if [ ! -d "$PY_TUNE5_DIR/urllib3/src/urllib3" ] || [ ! -d "$PY_TUNE5_DIR/itsdangerous/src/itsdangerous" ]; then
    say "urllib3 $URLLIB3_VERSION and itsdangerous $ITSDANGEROUS_VERSION sdists"
    sdists "$PY_TUNE5_DIR" "urllib3==$URLLIB3_VERSION" "itsdangerous==$ITSDANGEROUS_VERSION"
fi

# Go: one module `corpus` holding cron/ (robfig/cron v3), httprouter/,
# schema/ and securecookie/ (gorilla's), and lru/ (hashicorp/golang-lru with
# simplelru/), imports of each by its own path rewritten under corpus/: five
# small standard-library-only packages (a scheduler, a radix-tree router, a
# struct decoder with a cache of reflected fields, signed cookies, LRU caches
# behind an interface), with their tests.
GO_TUNE5_DIR="$CACHE/corpora/cron-httprouter-schema-lru-go"
if [ ! -f "$GO_TUNE5_DIR/go.mod" ]; then
    say "cron + httprouter + schema + securecookie + golang-lru module"
    rm -rf "$GO_TUNE5_DIR.part" && mkdir -p "$GO_TUNE5_DIR.part"
    cp -rL /usr/share/gocode/src/github.com/robfig/cron "$GO_TUNE5_DIR.part/cron"
    cp -rL /usr/share/gocode/src/github.com/julienschmidt/httprouter "$GO_TUNE5_DIR.part/httprouter"
    cp -rL "$GORILLA/schema" "$GO_TUNE5_DIR.part/schema"
    cp -rL "$GORILLA/securecookie" "$GO_TUNE5_DIR.part/securecookie"
    cp -rL /usr/share/gocode/src/github.com/hashicorp/golang-lru "$GO_TUNE5_DIR.part/lru"
    rm -f "$GO_TUNE5_DIR.part"/*/go.mod "$GO_TUNE5_DIR.part"/*/go.sum
    find "$GO_TUNE5_DIR.part" -name '*.go' -exec sed -i \
        -e 's#"github.com/robfig/cron/v3#"corpus/cron#' -e 's#"github.com/julienschmidt/httprouter#"corpus/httprouter#' \
        -e 's#"github.com/gorilla/schema#"corpus/schema#' -e 's#"github.com/gorilla/securecookie#"corpus/securecookie#' \
        -e 's#"github.com/hashicorp/golang-lru#"corpus/lru#' {} +
    printf 'module corpus\n\ngo 1.19\n' > "$GO_TUNE5_DIR.part/go.mod"
    rm -rf "$GO_TUNE5_DIR" && mv "$GO_TUNE5_DIR.part" "$GO_TUNE5_DIR"
fi

# --- sixth tuning set (compare-refs.py --set tune6) ----------------------------
# Go: one module `corpus` holding pq/ (lib/pq, a PostgreSQL driver: a
# connection struct with buffers and readers, statements, rows, listeners)
# and amqp/ (streadway/amqp, an AMQP client: connections, channels,
# frames), imports rewritten under corpus/. Left out: pq's auth/kerberos
# (needs gokrb5 and sspi) and amqp's _examples.
GO_TUNE6_DIR="$CACHE/corpora/pq-amqp-go"
if [ ! -f "$GO_TUNE6_DIR/go.mod" ]; then
    say "pq + amqp module"
    rm -rf "$GO_TUNE6_DIR.part" && mkdir -p "$GO_TUNE6_DIR.part"
    cp -rL /usr/share/gocode/src/github.com/lib/pq "$GO_TUNE6_DIR.part/pq"
    cp -rL /usr/share/gocode/src/github.com/streadway/amqp "$GO_TUNE6_DIR.part/amqp"
    rm -rf "$GO_TUNE6_DIR.part/pq/auth" "$GO_TUNE6_DIR.part/amqp/_examples" \
        "$GO_TUNE6_DIR.part"/*/go.mod "$GO_TUNE6_DIR.part"/*/go.sum
    find "$GO_TUNE6_DIR.part" -name '*.go' -exec sed -i \
        -e 's#"github.com/lib/pq#"corpus/pq#' -e 's#"github.com/streadway/amqp#"corpus/amqp#' {} +
    printf 'module corpus\n\ngo 1.19\n' > "$GO_TUNE6_DIR.part/go.mod"
    rm -rf "$GO_TUNE6_DIR" && mv "$GO_TUNE6_DIR.part" "$GO_TUNE6_DIR"
fi

# --- seventh tuning set (compare-refs.py --set tune7) --------------------------
# Go: one module `corpus` holding websocket/ (nhooyr.io/websocket: a
# connection struct with reader/writer halves, frames, a compression
# context, a net.Conn adapter) and gorilla's sessions/ and csrf/ (session
# stores, middleware wrapping handlers, tokens), imports
# of each by its own path rewritten under corpus/. Their dependencies stay
# outside the corpus (not indexed, not sampled), as directory replacements
# in go.mod. Left out: websocket's wspb/ and the two tests that need gin or
# import gorilla/websocket (the held-out set's code). gorilla/handlers would
# fit but needs felixge/httpsnoop, which is not packaged.
GO_TUNE7_DIR="$CACHE/corpora/nhooyr-sessions-csrf-go"
GO_TUNE7_DEPS="$CACHE/corpora/go-deps7"
if [ ! -f "$GO_TUNE7_DIR/go.mod" ]; then
    say "nhooyr websocket + gorilla sessions and csrf module"
    rm -rf "$GO_TUNE7_DIR.part" "$GO_TUNE7_DEPS" && mkdir -p "$GO_TUNE7_DIR.part" "$GO_TUNE7_DEPS"
    cp -rL /usr/share/gocode/src/nhooyr.io/websocket "$GO_TUNE7_DIR.part/websocket"
    for p in sessions csrf; do cp -rL "$GORILLA/$p" "$GO_TUNE7_DIR.part/$p"; done
    rm -rf "$GO_TUNE7_DIR.part/websocket/wspb" "$GO_TUNE7_DIR.part/websocket/conn_test.go" \
        "$GO_TUNE7_DIR.part/websocket/frame_test.go" "$GO_TUNE7_DIR.part"/*/go.mod "$GO_TUNE7_DIR.part"/*/go.sum
    find "$GO_TUNE7_DIR.part" -name '*.go' -exec sed -i \
        -e 's#"nhooyr.io/websocket#"corpus/websocket#' -e 's#"github.com/gorilla/sessions#"corpus/sessions#' -e 's#"github.com/gorilla/csrf#"corpus/csrf#' {} +
    req="" rep=""
    for m in github.com/klauspost/compress github.com/golang/protobuf google.golang.org/protobuf \
        github.com/google/go-cmp github.com/pkg/errors github.com/gorilla/securecookie; do
        cp -rL "/usr/share/gocode/src/$m" "$GO_TUNE7_DEPS/${m//\//_}"
        [ -f "$GO_TUNE7_DEPS/${m//\//_}/go.mod" ] || printf 'module %s\n\ngo 1.13\n' "$m" > "$GO_TUNE7_DEPS/${m//\//_}/go.mod"
        req="$req\t$m v1.99.0\n" rep="$rep$m => $GO_TUNE7_DEPS/${m//\//_}\n"
    done
    printf "module corpus\n\ngo 1.19\n\nrequire (\n$req)\n\nreplace (\n$rep)\n" > "$GO_TUNE7_DIR.part/go.mod"
    rm -rf "$GO_TUNE7_DIR" && mv "$GO_TUNE7_DIR.part" "$GO_TUNE7_DIR"
fi

cat <<EOF
cache	$CACHE
python	$CACHE/venv/bin/python
typescript	$CACHE/npm/node_modules/typescript
gopls	$(command -v gopls)
corpus-python	$PY_DIR
corpus-ts	$TS_DIR
corpus-go	$GO_DIR
check-python	$PY_CHECK_DIR
check-ts	$TS_CHECK_DIR
check-go	$GO_CHECK_DIR
tune2-python	$PY_TUNE2_DIR
tune2-ts	$TS_TUNE2_DIR
tune2-go	$GO_TUNE2_DIR
tune3-python	$PY_TUNE3_DIR
tune3-ts	$TS_TUNE3_DIR
tune3-go	$GO_TUNE3_DIR
corpus-js	$JS_DIR
tune2-js	$JS_TUNE2_DIR
check-js	$JS_CHECK_DIR
tune4-python	$PY_TUNE4_DIR
tune5-python	$PY_TUNE5_DIR
tune4-ts	$TS_TUNE4_DIR
tune4-go	$GO_TUNE4_DIR
tune5-go	$GO_TUNE5_DIR
tune6-go	$GO_TUNE6_DIR
tune7-go	$GO_TUNE7_DIR
EOF
