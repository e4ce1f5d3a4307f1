#!/usr/bin/env node
// Loopback reverse proxy that adds "Authorization: Bearer $MCP_TOKEN" to every
// request and streams everything else through unchanged (Host, Origin, SSE bodies,
// Mcp-Session-Id, status codes). Lets tools that cannot send custom headers
// (e.g. @modelcontextprotocol/conformance `server` mode) test a bearer-protected server.
//
// usage: MCP_TOKEN=secret node auth-proxy.mjs <listenPort> <upstream base URL>
//   e.g. MCP_TOKEN=secret node auth-proxy.mjs 3400 http://127.0.0.1:8087
// then point the tool at http://127.0.0.1:3400/mcp. With port 0 a free port
// is chosen; the proxy prints "listening <port>" on stdout once it accepts.
import http from 'node:http';

const [listenPort, upstreamArg] = process.argv.slice(2);
if (!listenPort || !upstreamArg) {
  console.error('usage: MCP_TOKEN=... node auth-proxy.mjs <listenPort> <upstreamBaseURL>');
  process.exit(2);
}
const upstream = new URL(upstreamArg);
const token = process.env.MCP_TOKEN || '';
let port = Number(listenPort);

const server = http.createServer((req, res) => {
  const headers = { ...req.headers };
  // Keep the client's Host header as-is (so DNS-rebinding checks still see the
  // attacker Host), but rewrite a Host that names this proxy to name the upstream.
  if (headers.host === `127.0.0.1:${port}` || headers.host === `localhost:${port}`) {
    headers.host = upstream.host;
  }
  if (token && !headers.authorization) headers.authorization = `Bearer ${token}`;
  const up = http.request(
    {
      hostname: upstream.hostname,
      port: upstream.port || 80,
      method: req.method,
      path: req.url,
      headers,
    },
    (upRes) => {
      res.writeHead(upRes.statusCode || 502, upRes.headers);
      upRes.pipe(res);
    }
  );
  up.on('error', (e) => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
    res.end(`proxy error: ${e.message}`);
  });
  res.on('close', () => up.destroy());
  req.pipe(up);
});
server.listen(port, '127.0.0.1', () => {
  port = server.address().port;
  console.error(`auth-proxy 127.0.0.1:${port} -> ${upstream.origin} (token ${token ? 'set' : 'EMPTY'})`);
  console.log(`listening ${port}`);
});
