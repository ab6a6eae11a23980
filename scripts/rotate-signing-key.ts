/**
 * `node scripts/rotate-signing-key.ts` — ops: the built-in issuer signs with a new key from now on.
 * The previous keys stay in the JWKS until every token they signed has expired (24 h + clock
 * tolerance). Gateways pick the new key up on its first token (an unknown kid refetches the JWKS).
 * Uses DATABASE_URL (or the embedded database) and EINV_OAUTH_KEY_SECRET (or the data directory's
 * generated secret) like the application; the new key is stored encrypted, and keys stored in clear
 * by older versions are encrypted first.
 */
import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from '../services/shared/persistence/orm.config.ts';
import { resolveDatabase } from '../services/shared/persistence/database-url.ts';
import { loadConfig } from '../services/shared/config.ts';
import { rotate, secureKeysAtRest } from '../services/identity/signing-keys.ts';
import { resolveKeySecret } from '../services/identity/key-secret.ts';
import { systemClock } from '../services/shared/clock.ts';

const { jwt, dataDir } = loadConfig();
const { secret } = resolveKeySecret(jwt.signingKeySecret, dataDir);
const database = await resolveDatabase();
const orm = await MikroORM.init(ormConfig(database.url));
try {
  const policy = { clockToleranceSeconds: jwt.clockToleranceSeconds, maxAgeDays: jwt.signingKeyMaxAgeDays, secret };
  const { sealed } = await secureKeysAtRest(orm.em.fork(), systemClock.now(), policy);
  if (sealed.length) console.log(`encrypted ${sealed.length} key(s) stored in clear: ${sealed.join(', ')}`);
  const { key, retiring } = await rotate(orm.em.fork(), systemClock.now(), policy);
  console.log(`signing with ${key.kid}`);
  for (const old of retiring) console.log(`${old.kid} stays published until ${old.retireAt!.toISOString()}`);
} finally {
  await orm.close(true);
  await database.stop();
}
