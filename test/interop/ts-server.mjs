// An MCP server written with the TypeScript SDK, for mcpx's interop tests
// (test/interop_servers_test.go). Plain ESM, no build step:
//
//	node ts-server.mjs [SDK]
//
// serves one session on stdin/stdout with the SDK package SDK (default
// @modelcontextprotocol/sdk; the tests also use sdk-1.31, SDK 1.31.0, whose
// McpServer validates a prompts/get without "arguments" as undefined, so a
// prompt whose arguments are all optional fails with "expected object,
// received undefined" unless the client sends an object).
//
// It has what servers built on the SDK and on FastMCP commonly have:
//   - prompt "summarize": every argument optional (registered through
//     McpServer.registerPrompt, validated by the SDK with zod)
//   - tool "create_deployment": an input schema shaped like the ones pydantic
//     writes for FastMCP tools ($defs with a nested model, an enum reached by
//     $ref, an Optional model as anyOf with null, an array of models), the
//     arguments validated against it with the SDK's Ajv validator; the result
//     echoes the arguments it got
//   - tool "render_badge": an image, with structuredContent mirroring it (as
//     the filesystem server's read_media_file does); all arguments optional,
//     so a call without "arguments" fails validation
//   - resource ts://docs/guide
const sdk = process.argv[2] ?? '@modelcontextprotocol/sdk';
const { McpServer } = await import(`${sdk}/server/mcp.js`);
const { StdioServerTransport } = await import(`${sdk}/server/stdio.js`);
const { ListToolsRequestSchema, CallToolRequestSchema, McpError, ErrorCode } = await import(`${sdk}/types.js`);
const { AjvJsonSchemaValidator } = await import(`${sdk}/validation/ajv`);
const z = await import('zod/v4');

const server = new McpServer({ name: 'ts-fixture', version: '1.0.0' });

server.registerPrompt('summarize', {
  title: 'Summarize',
  description: 'Summarize a topic (every argument is optional)',
  argsSchema: {
    topic: z.string().optional().describe('what to summarize'),
    tone: z.string().optional().describe('how it should sound'),
  },
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

// What pydantic v2's model_json_schema() writes for
//   class Region(str, Enum): EU_WEST = "eu-west"; US_EAST = "us-east"; AP_SOUTH = "ap-south"
//   class Endpoint(BaseModel): host: str; port: int = 443
//   class DeployConfig(BaseModel): name: str; replicas: int = 1; labels: dict[str, str] = {}
//   def create_deployment(config: DeployConfig, region: Region = Region.EU_WEST,
//       fallback: Optional[Endpoint] = None, endpoints: list[Endpoint] = [], dry_run: bool = False)
// as FastMCP lists it.
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

const badgeOutputSchema = {
  type: 'object',
  properties: {
    content: {
      type: 'array',
      items: {
        type: 'object',
        properties: { type: { type: 'string' }, data: { type: 'string' }, mimeType: { type: 'string' } },
        required: ['type', 'data', 'mimeType'],
      },
    },
  },
  required: ['content'],
};

// A 4x4 PNG.
const badgePNG = 'iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAEElEQVR42mNQ6rgLRwzEcQBwAhhxn7vO7AAAAABJRU5ErkJggg==';

const tools = [
  {
    name: 'create_deployment',
    description: 'Plan a deployment (echoes the arguments it got)',
    inputSchema: deploymentSchema,
    run: (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }),
  },
  {
    name: 'render_badge',
    description: 'Render a badge as a PNG image',
    inputSchema: badgeSchema,
    outputSchema: badgeOutputSchema,
    run: () => {
      const image = { type: 'image', data: badgePNG, mimeType: 'image/png' };
      return { content: [image], structuredContent: { content: [image] } };
    },
  },
];

const validator = new AjvJsonSchemaValidator();
const validators = new Map(tools.map((t) => [t.name, validator.getValidator(t.inputSchema)]));

server.server.registerCapabilities({ tools: {} });
server.server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: tools.map(({ name, description, inputSchema, outputSchema }) => ({ name, description, inputSchema, outputSchema })),
}));
server.server.setRequestHandler(CallToolRequestSchema, (request) => {
  const tool = tools.find((t) => t.name === request.params.name);
  if (!tool) {
    throw new McpError(ErrorCode.InvalidParams, `Tool ${request.params.name} not found`);
  }
  // Like McpServer's own tools: invalid arguments are a tool error.
  const check = validators.get(tool.name)(request.params.arguments);
  if (!check.valid) {
    const err = new McpError(ErrorCode.InvalidParams, `Input validation error: Invalid arguments for tool ${tool.name}: ${check.errorMessage}`);
    return { content: [{ type: 'text', text: err.message }], isError: true };
  }
  return tool.run(request.params.arguments);
});

await server.connect(new StdioServerTransport());
