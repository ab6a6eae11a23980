import { Errors } from 'moleculer';
import { formatError, formatOAuthError, ERROR_TABLE } from '../../../../services/gateway/error-formatter.ts';
import { DomainError, ERROR_CODES } from '../../../../services/shared/errors.ts';

const DOCS = 'http://api.test/docs/errors';

describe('formatError', () => {
  it('maps every spec code to its status and type, and keeps details and extra members', () => {
    for (const code of ERROR_CODES) {
      const out = formatError(new DomainError(code, 'msg', { details: [{ field: 'f', rule: 'r', message: 'm' }], extra: { existingId: 'comp_1' } }), 'req_1', DOCS);
      expect(out.status).toBe(ERROR_TABLE[code].status);
      expect(out.body.error).toEqual({ type: ERROR_TABLE[code].type, code, message: 'msg', details: [{ field: 'f', rule: 'r', message: 'm' }], requestId: 'req_1', docUrl: `${DOCS}#${code}`, existingId: 'comp_1' });
      expect(out.headers['X-Request-Id']).toBe('req_1');
    }
  });

  it('reads a DomainError rebuilt by transit (plain object with type and data) like a local one', () => {
    const remote = { name: 'DomainError', message: 'gone', code: 0, type: 'REVOKED_KEY', data: { details: [] } };
    expect(formatError(remote, 'req_2', DOCS)).toMatchObject({ status: 401, body: { error: { code: 'REVOKED_KEY', message: 'gone' } } });
  });

  it('reads pure modules\' errors that carry the spec code in `code` and details at the top', () => {
    const mappingError = Object.assign(new Error('bad subtype'), { code: 'INVALID_REQUEST', details: [{ field: 'documentSubtype', rule: 'type', message: 'only with invoice' }] });
    expect(formatError(mappingError, 'req_3', DOCS).body.error.details).toEqual([{ field: 'documentSubtype', rule: 'type', message: 'only with invoice' }]);
  });

  it('turns Moleculer internals into public codes without leaking their names', () => {
    const cases: Array<[unknown, number, string]> = [
      [new Errors.ServiceNotAvailableError({ action: 'x.y', nodeID: 'n' }), 503, 'UPSTREAM_UNAVAILABLE'],
      [new Errors.ServiceNotFoundError({ action: 'x.y' }), 503, 'UPSTREAM_UNAVAILABLE'],
      [new Errors.QueueIsFullError({ action: 'x.y', nodeID: 'n', size: 1, limit: 1 }), 503, 'UPSTREAM_UNAVAILABLE'],
      [new Errors.RequestTimeoutError({ action: 'x.y', nodeID: 'n' }), 504, 'UPSTREAM_TIMEOUT'],
      [new Errors.RequestSkippedError({ action: 'x.y', nodeID: 'n' }), 504, 'UPSTREAM_TIMEOUT'],
      [new Errors.ValidationError('bad', 'VALIDATION_ERROR', [{ type: 'required', field: 'name', message: 'name is required' }]), 400, 'MISSING_FIELD'],
    ];
    for (const [err, status, code] of cases) {
      const out = formatError(err, 'req_4', DOCS);
      expect({ status: out.status, code: out.body.error.code }).toEqual({ status, code });
      expect(JSON.stringify(out.body)).not.toMatch(/SERVICE_NOT|REQUEST_SKIPPED|QUEUE_FULL|x\.y/);
    }
    expect(formatError(new Errors.ServiceNotAvailableError({ action: 'a', nodeID: 'n' }), 'r', DOCS).headers['Retry-After']).toBe('5');
  });

  it('a connector whose network did not answer is a 503 naming what failed, with Retry-After', () => {
    const err = new Errors.MoleculerError('adapter.peppol-discovery: the SMP did not answer: connect ECONNREFUSED', 502, 'CONNECTOR_TRANSIENT');
    const out = formatError(err, 'req_5', DOCS);
    expect({ status: out.status, code: out.body.error.code }).toEqual({ status: 503, code: 'UPSTREAM_UNAVAILABLE' });
    expect(out.body.error.message).toContain('the SMP did not answer');
    expect(out.headers['Retry-After']).toBe('30');
  });

  it('anything unexpected is a 500 INTERNAL_ERROR whose text and stack stay on the server', () => {
    const out = formatError(new TypeError("Cannot read properties of undefined (reading 'secret')"), 'req_5', DOCS);
    expect(out.status).toBe(500);
    expect(out.internal).toBe(true);
    expect(out.body.error.code).toBe('INTERNAL_ERROR');
    expect(JSON.stringify(out.body)).not.toMatch(/secret|TypeError|\.ts:/);
    expect(formatError(undefined, 'req_6', DOCS).status).toBe(500);
  });

  it('passes Retry-After from the error data, rounded up to whole seconds', () => {
    expect(formatError(new DomainError('RATE_LIMITED', 'slow down', { retryAfter: 1.2 }), 'r', DOCS).headers['Retry-After']).toBe('2');
  });
});

describe('formatOAuthError (token endpoint)', () => {
  it('renders RFC 6749 errors with the error table\'s statuses, no-store, and the request\'s extra headers', () => {
    const denied = formatOAuthError(new DomainError('ACCESS_DENIED', 'audience not granted'), 'req_9', { 'RateLimit-Limit': '60' });
    expect(denied).toMatchObject({ status: 403, internal: false, body: { error: 'access_denied', error_description: 'audience not granted', requestId: 'req_9' } });
    expect(denied.headers).toMatchObject({ 'Cache-Control': 'no-store', 'X-Request-Id': 'req_9', 'RateLimit-Limit': '60' });
    expect(formatOAuthError(new DomainError('INVALID_CLIENT', 'x'), 'r').body.error).toBe('invalid_client');
    expect(formatOAuthError(new DomainError('MISSING_FIELD', 'x'), 'r')).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(formatOAuthError(new DomainError('RATE_LIMITED', 'x', { retryAfter: 3 }), 'r')).toMatchObject({ status: 429, headers: { 'Retry-After': '3' }, body: { error: 'rate_limited' } });
    expect(formatOAuthError(new Error('boom'), 'r')).toMatchObject({ status: 500, internal: true, body: { error: 'server_error' } });
  });
});
