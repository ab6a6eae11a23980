import { CustomDomains } from '../../../../services/gateway/custom-domains.ts';

describe('CustomDomains.candidate', () => {
  const own = new Set(['localhost', 'api.example.com']);

  it('takes the host of a Host header, lowercase and without its port', () => {
    expect(CustomDomains.candidate('Einvoicing.Acme.example:443', own)).toBe('einvoicing.acme.example');
    expect(CustomDomains.candidate('billing.acme.example', own)).toBe('billing.acme.example');
  });

  it('never looks up the platform\'s own hosts, IP literals, single labels or absurd lengths', () => {
    for (const host of [undefined, '', 'api.example.com', 'API.example.com:8443', 'localhost:3000', '127.0.0.1:3000', '[::1]:3000', 'intranet', `${'a'.repeat(250)}.example`]) {
      expect(CustomDomains.candidate(host, own)).toBeUndefined();
    }
  });
});
