/**
 * The access rules of an operation for a known caller: its scope, sandbox-only operations, and the
 * company a one-company operation acts for. One place, applied to a request by the gateway and to
 * an MCP tool call by services/gateway/mcp.ts, so both refuse with the same codes.
 */
import { DomainError } from '../shared/errors.ts';
import { hasScope, type Principal } from '../shared/auth.ts';
import type { HttpBinding } from '../shared/contract.ts';

export function assertAccess(auth: Principal, binding: HttpBinding): void {
  if (binding.access !== 'authenticated' && binding.access !== 'public' && !hasScope(auth.scopes, binding.access)) {
    throw new DomainError('INSUFFICIENT_SCOPE', `This call requires the '${binding.access}' scope`, { extra: { requiredScope: binding.access } });
  }
  if (binding.testModeOnly && auth.livemode) throw new DomainError('TEST_MODE_ONLY', 'Only sandbox (test) keys may call this');
  if (binding.company === 'required' && !auth.companyId) {
    throw new DomainError('COMPANY_REQUIRED', auth.keyType === 'personal'
      ? 'This key is not bound to a company; send X-Service-Company with one of your companies'
      : 'Platform and white-label keys must send X-Service-Company: <company_id>');
  }
}
