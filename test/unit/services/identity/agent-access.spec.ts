/**
 * Agent access: the PKCE S256 computation against RFC 7636's own example (Appendix B), and the
 * migration of its tables against the entities (no schema difference left on a migrated database).
 */
import { pendingSchemaChanges, useMigratedOrm } from '../../../support/migrated-orm.ts';
import { s256Challenge, verifierMatches } from '../../../../services/identity/agent-access.ts';
import { CODE_CHALLENGE_PATTERN, CODE_VERIFIER_PATTERN } from '../../../../services/identity/agent-access.contract.ts';

describe('PKCE S256 (RFC 7636)', () => {
  // RFC 7636, Appendix B.
  const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
  const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

  it('computes the RFC\'s example challenge from its verifier, and matches only that verifier', () => {
    expect(s256Challenge(verifier)).toBe(challenge);
    expect(verifierMatches(verifier, challenge)).toBe(true);
    expect(verifierMatches(`${verifier.slice(0, -1)}Y`, challenge)).toBe(false);
    expect(verifierMatches(verifier, challenge.slice(0, -1))).toBe(false);
  });

  it('accepts the RFC\'s verifier and challenge shapes, and nothing shorter or with other characters', () => {
    expect(CODE_VERIFIER_PATTERN.test(verifier)).toBe(true);
    expect(CODE_CHALLENGE_PATTERN.test(challenge)).toBe(true);
    expect(CODE_VERIFIER_PATTERN.test('a'.repeat(42))).toBe(false);
    expect(CODE_VERIFIER_PATTERN.test('a'.repeat(129))).toBe(false);
    expect(CODE_VERIFIER_PATTERN.test(`${'a'.repeat(43)}+`)).toBe(false);
    expect(CODE_CHALLENGE_PATTERN.test(`${challenge}=`)).toBe(false);
  });
});

describe('agent access tables', () => {
  const { orm } = useMigratedOrm();

  it('are exactly what the entities declare once migrated (plus the foreign keys to organizations, as other services\' tables have)', async () => {
    expect(await pendingSchemaChanges(orm(), /agent_authorizations|handoff_tokens/)).toEqual(['alter table "agent_authorizations" drop constraint "agent_authorizations_organization_id_foreign";', 'alter table "handoff_tokens" drop constraint "handoff_tokens_organization_id_foreign";']);
  });
});
