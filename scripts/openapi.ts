/**
 * Writes the OpenAPI document the gateway serves (built from the same contracts) to a file:
 * `node scripts/openapi.ts [out=openapi.json]`. Used by `npm run lint:openapi`.
 */
import { writeFileSync } from 'node:fs';
import { buildOpenApi } from '../services/gateway/openapi.ts';
import { HTTP_CONTRACTS } from '../services/gateway/routes.ts';
import { loadConfig } from '../services/shared/config.ts';

const out = process.argv[2] ?? 'openapi.json';
writeFileSync(out, `${JSON.stringify(buildOpenApi(HTTP_CONTRACTS, loadConfig().publicUrl), null, 2)}\n`);
console.log(`wrote ${out}`);
