#!/usr/bin/env node
// Drives a dir2mcp server with the official TypeScript SDK client
// (@modelcontextprotocol/sdk 1.32.x) the way an agent would, and prints one
// JSON document describing what it saw. Used by the Go interop tests.
//
// usage:
//   node interop-client.mjs http URL            (MCP_TOKEN sets the bearer header)
//   node interop-client.mjs stdio CMD [ARGS...] (spawns the server)
//
// Steps: initialize; tools/list, resources/list (all pages),
// resources/templates/list, prompts/list; prompts/get for each prompt;
// completion/complete on the file template; logging/setLevel; every tool
// called once with valid arguments plus one with invalid arguments and one
// unknown tool; resources/read of a text resource; then session termination
// (HTTP DELETE, or closing stdin). Exit 0 when every step ran; the JSON says
// what each returned.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [mode, target, ...rest] = process.argv.slice(2);
if (!mode || !target || !['http', 'stdio'].includes(mode)) {
  console.error('usage: interop-client.mjs http URL | stdio CMD [ARGS...]');
  process.exit(2);
}
const timeout = Number(process.env.MCP_TIMEOUT_MS || 60000);
const err = (e) => ({ code: e?.code, message: e?.message ?? String(e) });

let transport;
if (mode === 'http') {
  const headers = {};
  if (process.env.MCP_TOKEN) headers.Authorization = `Bearer ${process.env.MCP_TOKEN}`;
  transport = new StreamableHTTPClientTransport(new URL(target), { requestInit: { headers } });
} else {
  transport = new StdioClientTransport({ command: target, args: rest, stderr: 'inherit' });
}

const out = { mode };
const logs = [];
const client = new Client({ name: 'dir2mcp-interop-ts', version: '1.0.0' }, { capabilities: {} });
client.fallbackNotificationHandler = async (n) => {
  if (n.method === 'notifications/message') logs.push(n.params);
};
let code = 0;
try {
  await client.connect(transport, { timeout });
  out.sessionId = transport.sessionId ?? null;
  out.protocolVersion = transport.protocolVersion ?? null;
  out.serverInfo = client.getServerVersion();
  out.capabilities = client.getServerCapabilities();

  out.tools = (await client.listTools({}, { timeout })).tools;
  const resources = [];
  let cursor;
  out.resourcePages = 0;
  do {
    const page = await client.listResources(cursor ? { cursor } : {}, { timeout });
    resources.push(...page.resources);
    out.resourcePages++;
    cursor = page.nextCursor;
  } while (cursor);
  out.resources = resources;
  out.templates = (await client.listResourceTemplates({}, { timeout })).resourceTemplates;
  out.prompts = (await client.listPrompts({}, { timeout })).prompts;
  out.promptResults = {};
  for (const p of out.prompts) {
    const args = {};
    for (const a of p.arguments ?? []) args[a.name] = a.name === 'rel_path' ? (resources[0]?.name ?? 'x') : 'ledger';
    out.promptResults[p.name] = await client.getPrompt({ name: p.name, arguments: args }, { timeout });
  }
  const tpl = out.templates[0]?.uriTemplate;
  out.completion = await client.complete({ ref: { type: 'ref/resource', uri: tpl }, argument: { name: 'path', value: 'src/' } }, { timeout });
  out.setLevel = await client.setLoggingLevel('debug', { timeout });

  const text = resources.find((r) => (r.mimeType ?? '').startsWith('text/'));
  const calls = [
    ['dir2mcp.search', { query: 'reconcile ledger entries', k: 5 }],
    ['dir2mcp.search', { query: 'ledger', in: 'title' }],
    ['dir2mcp.ask', { question: 'How are ledger entries reconciled?', k: 3 }],
    ['dir2mcp.open_file', { rel_path: text?.name ?? 'README.md', start_line: 1, end_line: 5 }],
    ['dir2mcp.list_files', { limit: 5 }],
    ['dir2mcp.stats', {}],
    ['dir2mcp.diff', { limit: 5 }],
    ['dir2mcp.grep', { pattern: 'Entry', context: 1, max_matches: 2 }],
    ['dir2mcp.grep', { pattern: '(?i)ledger', max_tokens: 60 }],
    ['dir2mcp.find', { glob: '**/*.go', sort: 'size' }],
    ['dir2mcp.checksum', { rel_path: 'src/ledger/ledger.go', algorithms: ['sha256', 'md5'] }],
    ['dir2mcp.open_file', { rel_path: 'assets/blob.bin', offset: 2, length: 8 }],
    ['dir2mcp.search', { query: 'ledger', k: 1, max_tokens: 50 }],
    ['dir2mcp.search', { query: 'x', k: 99 }], // invalid: isError INVALID_RANGE
  ];
  out.calls = [];
  for (const [name, args] of calls) {
    const rec = { name, arguments: args };
    try {
      // callTool validates structuredContent against the declared outputSchema.
      rec.result = await client.callTool({ name, arguments: args }, undefined, { timeout });
    } catch (e) {
      rec.error = err(e);
      code = 1;
    }
    out.calls.push(rec);
  }
  try {
    await client.callTool({ name: 'dir2mcp.nope', arguments: {} }, undefined, { timeout });
    out.unknownTool = { error: null };
  } catch (e) {
    out.unknownTool = { error: err(e) };
  }
  out.read = text ? await client.readResource({ uri: text.uri }, { timeout }) : null;
  out.logs = logs;
  if (mode === 'http' && transport.sessionId) {
    await transport.terminateSession();
    out.sessionTerminated = true;
  }
} catch (e) {
  out.error = err(e);
  code = 1;
} finally {
  await client.close().catch(() => {});
}
// Exit once the report is flushed: a pipe takes a large write in parts.
process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(code));
