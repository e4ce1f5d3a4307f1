# Sourced by the conformance and interop scripts: installs (once, cached) a
# Node >= 22 runtime, @modelcontextprotocol/conformance and the official
# TypeScript SDK from npm, and sets NODE22, CONFORMANCE and SDK_DIR.
# env: DIR2MCP_NODE_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/dir2mcp-conformance)
CONF_VERSION=0.1.16
SDK_VERSION=1.32.2
NODE_CACHE=${DIR2MCP_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dir2mcp-conformance}
NODE22=$NODE_CACHE/node22/node_modules/node/bin/node
CONFORMANCE=$NODE_CACHE/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js
SDK_DIR=$NODE_CACHE/sdk

npm_install() { # dir package
  mkdir -p "$1" && (cd "$1" && { [ -f package.json ] || npm init -y >/dev/null; } && npm install --no-audit --no-fund "$2" >/dev/null 2>&1)
}

ensure_node() {
  if ! command -v npm >/dev/null 2>&1; then
    echo "npm not found: install Node.js and npm (apt-get install nodejs npm)" >&2
    return 1
  fi
  if ! [ -x "$NODE22" ] || ! "$NODE22" -e 'process.exit(+process.versions.node.split(".")[0] >= 22 ? 0 : 1)' 2>/dev/null; then
    echo "installing node@22 under $NODE_CACHE ..." >&2
    npm_install "$NODE_CACHE/node22" node@22 || { echo "npm install node@22 failed" >&2; return 1; }
  fi
  if ! [ -f "$CONFORMANCE" ]; then
    echo "installing @modelcontextprotocol/conformance@$CONF_VERSION ..." >&2
    npm_install "$NODE_CACHE/conformance" "@modelcontextprotocol/conformance@$CONF_VERSION" || return 1
  fi
  if ! [ -f "$SDK_DIR/node_modules/@modelcontextprotocol/sdk/package.json" ]; then
    echo "installing @modelcontextprotocol/sdk@$SDK_VERSION ..." >&2
    npm_install "$SDK_DIR" "@modelcontextprotocol/sdk@$SDK_VERSION" || return 1
  fi
}
