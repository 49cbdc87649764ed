// An MCP server written with v2 of the TypeScript SDK
// (@modelcontextprotocol/server), the SDK line that serves the 2026-07-28
// protocol revision, for mcpx's interop tests (test/interop_servers_test.go).
// Plain ESM, no build step:
//
//	node ts2-server.mjs stdio   one connection on stdin/stdout (serveStdio:
//	                            server/discover opens the 2026-07-28 era,
//	                            initialize the 2025 one)
//	node ts2-server.mjs http    createMcpHandler on a free loopback port at
//	                            /mcp (2026-07-28 per request; 2025-era
//	                            traffic served statelessly), printing
//	                            "ts2-fixture listening on port N" when ready
//
// The same surface as ts-server.mjs, written the v2 way (McpServer with JSON
// Schemas through fromJsonSchema, one factory for both eras):
//   - prompt "summarize": every argument optional
//   - tool "create_deployment": the FastMCP/pydantic-style $defs schema, the
//     arguments validated by the SDK; the result echoes them
//   - tool "render_badge": an image, with structuredContent mirroring it
//   - resource ts://docs/guide
import http from 'node:http';
import { McpServer, createMcpHandler, fromJsonSchema } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

// What pydantic v2 writes for create_deployment (see ts-server.mjs).
const deploymentSchema = {
  $defs: {
    DeployConfig: {
      properties: {
        name: { title: 'Name', type: 'string' },
        replicas: { default: 1, title: 'Replicas', type: 'integer' },
        labels: { additionalProperties: { type: 'string' }, default: {}, title: 'Labels', type: 'object' },
      },
      required: ['name'],
      title: 'DeployConfig',
      type: 'object',
    },
    Endpoint: {
      properties: {
        host: { title: 'Host', type: 'string' },
        port: { default: 443, title: 'Port', type: 'integer' },
      },
      required: ['host'],
      title: 'Endpoint',
      type: 'object',
    },
    Region: { enum: ['eu-west', 'us-east', 'ap-south'], title: 'Region', type: 'string' },
  },
  properties: {
    config: { $ref: '#/$defs/DeployConfig', description: 'what to deploy' },
    region: { $ref: '#/$defs/Region', default: 'eu-west', description: 'where to deploy' },
    fallback: {
      anyOf: [{ $ref: '#/$defs/Endpoint' }, { type: 'null' }],
      default: null,
      description: 'where traffic goes if the deployment fails',
    },
    endpoints: { default: [], items: { $ref: '#/$defs/Endpoint' }, title: 'Endpoints', type: 'array' },
    dry_run: { default: false, title: 'Dry Run', type: 'boolean' },
  },
  required: ['config'],
  title: 'create_deploymentArguments',
  type: 'object',
};

const badgeSchema = {
  type: 'object',
  properties: { label: { type: 'string', description: 'text of the badge' } },
};

const summarizeSchema = {
  type: 'object',
  properties: {
    topic: { type: 'string', description: 'what to summarize' },
    tone: { type: 'string', description: 'how it should sound' },
  },
};

// A 4x4 PNG.
const badgePNG = 'iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAEElEQVR42mNQ6rgLRwzEcQBwAhhxn7vO7AAAAABJRU5ErkJggg==';

function newServer() {
  const server = new McpServer({ name: 'ts2-fixture', version: '1.0.0' });

  server.registerPrompt('summarize', {
    title: 'Summarize',
    description: 'Summarize a topic (every argument is optional)',
    argsSchema: fromJsonSchema(summarizeSchema),
  }, ({ topic, tone }) => ({
    messages: [{
      role: 'user',
      content: { type: 'text', text: `Summarize ${topic ?? 'everything'} in a ${tone ?? 'neutral'} tone.` },
    }],
  }));

  server.registerResource('guide', 'ts://docs/guide', {
    title: 'Guide',
    description: 'How to use this server',
    mimeType: 'text/markdown',
  }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/markdown', text: '# Guide\n\nCall create_deployment with a config.\n' }],
  }));

  server.registerTool('create_deployment', {
    description: 'Plan a deployment (echoes the arguments it got)',
    inputSchema: fromJsonSchema(deploymentSchema),
  }, (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }));

  server.registerTool('render_badge', {
    description: 'Render a badge as a PNG image',
    inputSchema: fromJsonSchema(badgeSchema),
  }, () => {
    const image = { type: 'image', data: badgePNG, mimeType: 'image/png' };
    return { content: [image], structuredContent: { content: [image] } };
  });
  return server;
}

// serveHTTP answers /mcp with the SDK's web-standard handler, through the
// few lines of node:http glue a server without a framework has.
function serveHTTP() {
  const handler = createMcpHandler(newServer);
  const srv = http.createServer(async (req, res) => {
    if (new URL(req.url, 'http://localhost').pathname !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) {
      for (const one of [v].flat()) headers.append(k, one);
    }
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const body = chunks.length > 0 && req.method !== 'GET' && req.method !== 'HEAD' ? Buffer.concat(chunks) : undefined;
    const answer = await handler.fetch(new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method, headers, body, signal: abort.signal,
    }));
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    if (!answer.body) {
      res.end();
      return;
    }
    try {
      for await (const chunk of answer.body) res.write(chunk);
    } catch {
      // the client went away mid-stream
    }
    res.end();
  });
  srv.listen(0, '127.0.0.1', () => {
    console.log(`ts2-fixture listening on port ${srv.address().port}`);
  });
}

switch (process.argv[2]) {
  case 'stdio':
    serveStdio(newServer);
    break;
  case 'http':
    serveHTTP();
    break;
  default:
    console.error('usage: node ts2-server.mjs stdio|http');
    process.exit(2);
}
