/** Organization selection from a verified token's claims and the organization header (pure rules of the spec). */
import { grantedOrganizations, isMachineToken, organizationHeader, selectOrganization } from '../../../../services/gateway/credentials.ts';

const code = (fn: () => unknown) => {
  try { fn(); } catch (err) { return { code: (err as { type?: string }).type, message: (err as Error).message }; }
  throw new Error('expected a throw');
};

describe('users (identity-provider JWTs)', () => {
  const claims = { sub: 'u1', _permissions: { org_A: ['admin'], org_B: [] } };

  it('takes the first entry of _permissions by default, every entry as organizationIds', () => {
    expect(selectOrganization(claims, undefined)).toEqual({ kind: 'user', organizationId: 'org_A', organizationIds: ['org_A', 'org_B'] });
  });

  it('takes the header when the claim grants it, else 403 naming what is available', () => {
    expect(selectOrganization(claims, 'org_B').organizationId).toBe('org_B');
    expect(code(() => selectOrganization(claims, 'org_C'))).toEqual({ code: 'ORGANIZATION_FORBIDDEN', message: "Token does not grant access to organization 'org_C'. Available: org_A, org_B." });
  });

  it('403 "No organization found in token" when the claim is empty or absent', () => {
    for (const c of [{ _permissions: {} }, {}, { _permissions: null }, { _permissions: 'org_A' }]) {
      expect(code(() => selectOrganization(c, undefined))).toEqual({ code: 'ORGANIZATION_FORBIDDEN', message: 'No organization found in token' });
    }
    expect(code(() => selectOrganization({ _permissions: {} }, 'org_A')).message).toBe("Token does not grant access to organization 'org_A'. Available: none.");
  });

  it('reads _permissions as a map or a list of ids', () => {
    expect(grantedOrganizations({ a: 1, b: 2 })).toEqual(['a', 'b']);
    expect(grantedOrganizations(['a', '', 3, 'b'])).toEqual(['a', 'b']);
    expect(grantedOrganizations(undefined)).toEqual([]);
  });
});

describe('machine tokens (client credentials)', () => {
  const machine = { sub: 'tacc_1', gty: 'client-credentials', _permissions: {} };

  it('are recognised by gty', () => {
    expect(isMachineToken(machine)).toBe(true);
    expect(isMachineToken({ sub: 'u' })).toBe(false);
  });

  it('need the header, which is the only source of the tenant (membership is checked later)', () => {
    expect(code(() => selectOrganization(machine, undefined))).toEqual({ code: 'ORGANIZATION_FORBIDDEN', message: 'No organization found in token' });
    expect(selectOrganization(machine, 'org_X')).toEqual({ kind: 'machine', organizationId: 'org_X', organizationIds: [] });
  });
});

it('reads X-Service-Organization-Id, then the legacy Organization-Id', () => {
  expect(organizationHeader({ 'x-service-organization-id': ' org_A ', 'organization-id': 'org_B' })).toBe('org_A');
  expect(organizationHeader({ 'organization-id': 'org_B' })).toBe('org_B');
  expect(organizationHeader({ 'x-service-organization-id': '' })).toBeUndefined();
});
