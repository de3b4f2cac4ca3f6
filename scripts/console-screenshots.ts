// README screenshots of every console view (docs/images/console-*.png), with traffic spread over SPAN_MS (default 90 s):
// node --import tsx scripts/console-screenshots.ts
import { startBridge } from '../src/commands/forward.js';
import { createLogger } from '../src/platform/log.js';
import { startOxpFixture, type FixtureTool } from '../test/fixtures/oxp-fixture-server.js';
import { testConfig, modernHeaders, MODERN_META } from '../test/helpers/bridge-harness.js';
import { integrationTools } from '../test/helpers/it-bridge.js';
import { launchBrowser } from '../test/console/browser.js';
const TOKEN = 'docs-token-0123456789abcdef';
const tools: FixtureTool[] = [
  ...integrationTools(),
  {
    id: 'Search.Web',
    name: 'Search_Web',
    description: 'Searches the web.',
    version: '1.0.0',
    input_schema: {
      type: 'object',
      properties: { query: { type: 'string', description: 'What to search for.' }, limit: { type: 'integer', minimum: 1, default: 5 } },
      required: ['query'],
    },
    output_schema: { type: 'object', properties: { hits: { type: 'array', items: { type: 'string' } } } },
    handler: async (req) => {
      await new Promise((r) => setTimeout(r, 5 + Math.random() * 60 + (Math.random() < 0.05 ? 250 : 0)));
      return { value: { hits: [`result for ${String(req.input?.['query'])}`] } };
    },
  },
];
const fixture = await startOxpFixture({ tools });
const bridge = await startBridge(testConfig(['--oxp-url', fixture.url], { MCP_AUTH_TOKENS: TOKEN }), createLogger('silent'));
const mcp = bridge.mcpUrl!;
const base = mcp.replace(/\/mcp$/, '');
let id = 1;
const call = (name: string, args: object) =>
  fetch(mcp, {
    method: 'POST',
    headers: {
      ...modernHeaders('tools/call', name),
      authorization: `Bearer ${TOKEN}`,
      traceparent: `00-${crypto.randomUUID().replace(/-/g, '')}-${'ab'.repeat(8)}-01`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name, arguments: args, _meta: MODERN_META } }),
  }).then((r) => r.text());
const end = Date.now() + Number(process.env.SPAN_MS ?? 90_000);
while (Date.now() < end) {
  await Promise.all([
    call('Search_Web', { query: 'mcp gateways', limit: 3 }),
    call('Math_Double', { x: Math.random() * 10 }),
    Math.random() < 0.3 ? call('Doorbell_Ring', { doorbell_id: 'doorbell1' }) : call('System_GetTimestamp', {}),
  ]);
  await new Promise((r) => setTimeout(r, 400));
}
const browser = await launchBrowser();
const page = await browser.newPage();
// A laptop's width: the console's tables and JSON columns are held to it (test/console/layout-measure.ts).
await page.setViewport({ width: 1280, height: 800 });
await page.goto(`${base}/console/`);
await page.waitForSelector('#token');
await page.type('#token', TOKEN);
await page.click('#login-form button');
await page.waitForSelector('#upstream-list article');
await new Promise((r) => setTimeout(r, 300));
const out = new URL('../docs/images/', import.meta.url).pathname;
await page.screenshot({ path: `${out}console-upstreams.png` });
await page.goto(`${base}/console/#tools/Math_Double`);
await page.waitForSelector('#tool-detail .col');
await page.screenshot({ path: `${out}console-tools.png` });
await page.goto(`${base}/console/#calls`);
await page.waitForSelector('#recent-calls tbody tr');
await page.screenshot({ path: `${out}console-calls.png` });
await page.goto(`${base}/console/#try/Math_Double`);
await page.waitForSelector('#arg-x');
await page.type('#arg-x', '21');
await page.click('#try-form button[type=submit]');
await page.waitForSelector('#try-result .col');
await page.screenshot({ path: `${out}console-try.png` });
await browser.close();
await bridge.close();
await fixture.close();
