// The layering rules `npm run lint` checks: agent/ free of platforms and tools, tools/ free of bot/, no cycles.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'agent-stays-below-bot',
      comment: 'agent/ is the kernel: it must build and pass its tests without the bot, patrols or tools.',
      severity: 'error',
      from: { path: '^agent/' },
      to: { path: '^(bot|scheduled|tools)/' },
    },
    {
      name: 'agent-imports-no-chat-sdk',
      comment: 'agent/ talks to platforms through ChatPort only; the adapters in bot/ own the chat SDKs.',
      severity: 'error',
      from: { path: '^agent/' },
      to: { path: 'node_modules/(@slack/|discord\\.js/|@discordjs/)' },
    },
    {
      name: 'mcp-sdk-stays-in-tools-mcp',
      comment:
        'MCP servers are tool sources: only tools/mcp/ speaks the protocol (the MCP SDK), and only as a client.',
      severity: 'error',
      from: { path: '^(agent|bot|scheduled)/|^tools/(?!mcp/)' },
      to: { path: 'node_modules/@modelcontextprotocol/' },
    },
    {
      name: 'tools-stay-below-bot',
      comment: 'tools/ are loaded by the bot, so they may use agent/ but never import bot/.',
      severity: 'error',
      from: { path: '^tools/' },
      to: { path: '^bot/' },
    },
    {
      name: 'product-stays-below-its-checks',
      comment:
        'tests/, bench/ and evals/ drive the product; the product never imports them (nor their fakes).',
      severity: 'error',
      from: { path: '^(agent|bot|scheduled|tools)/' },
      to: { path: '^(tests|bench|evals)/' },
    },
    {
      name: 'no-cycles',
      comment: 'Cycles make load order matter and blur the layers; move the shared part into its own module.',
      severity: 'error',
      from: { path: '^(agent|bot|scheduled|tools)/' },
      to: { circular: true },
    },
    {
      name: 'imports-resolve',
      comment: 'An import the cruiser cannot resolve is one the rules above cannot see, so it fails too.',
      severity: 'error',
      from: { path: '^(agent|bot|scheduled|tools)/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // Type-only imports count: a type pulled from a higher layer still ties the lower layer to it.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
  },
};
