// Regenerates config/config.schema.json from src/config/schema.ts.
import { writeFileSync } from 'node:fs';
import { CONFIG_SCHEMA } from '../src/config/schema.js';

writeFileSync(new URL('../config/config.schema.json', import.meta.url), `${JSON.stringify(CONFIG_SCHEMA, null, 2)}\n`);
